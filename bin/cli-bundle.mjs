// The desk CLI's bundle (out/cli/desk.mjs) and the record of what it was built from
// (out/cli/desk.meta.json: every project source esbuild read, with its mtime, and the installed
// dependencies' lock). bin/build-cli.mjs writes both; bin/desk.mjs checks the record before
// running the bundle, so a source checkout never runs a stale CLI silently. The check is one
// stat per project source (a few ms); esbuild is imported only to rebuild.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const bundlePath = join(root, 'out', 'cli', 'desk.mjs')
export const metaPath = join(root, 'out', 'cli', 'desk.meta.json')
export const entryPath = join(root, 'main', 'hosts', 'cli', 'desk.ts')
const LOCK = join('node_modules', '.package-lock.json')

const mtimeIn = (base, file) => {
  try {
    return statSync(join(base, file)).mtimeMs
  } catch {
    return null
  }
}
const mtime = (file) => mtimeIn(root, file)

/**
 * Why the bundle cannot be run as is ('missing', 'no record', 'changed: FILE'), or null when it
 * is fresh. A tree without the sources (an installed package) runs the bundle it ships.
 */
export function bundleStaleness(base = root) {
  const bundle = join(base, 'out', 'cli', 'desk.mjs')
  const entry = join(base, 'main', 'hosts', 'cli', 'desk.ts')
  if (!existsSync(bundle)) return existsSync(entry) ? 'missing' : 'missing, and no sources to build it from'
  if (!existsSync(entry)) return null
  let meta
  try {
    meta = JSON.parse(readFileSync(join(base, 'out', 'cli', 'desk.meta.json'), 'utf8'))
  } catch {
    return 'no build record'
  }
  if (mtimeIn(base, 'package.json') !== meta.packageJson) return 'changed: package.json'
  if (mtimeIn(base, LOCK) !== meta.lock) return 'changed: installed dependencies'
  for (const [file, at] of Object.entries(meta.inputs ?? {})) if (mtimeIn(base, file) !== at) return `changed: ${file}`
  return null
}

/** Builds the bundle and its record. */
export async function buildBundle() {
  const { build } = await import('esbuild')
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const started = { packageJson: mtime('package.json'), lock: mtime(LOCK) }
  const result = await build({
    entryPoints: [entryPath],
    outfile: bundlePath,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Native and optional modules load from the installed package (the app's own node_modules).
    external: ['better-sqlite3', 'bufferutil', 'utf-8-validate', 'electron'],
    // Bundled CommonJS dependencies call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __deskRequire } from 'node:module'; const require = __deskRequire(import.meta.url);" },
    // The desk reports (and compares with an attached app's) the version it was built as.
    define: { 'process.env.DESK_VERSION': JSON.stringify(pkg.version) },
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    // Written below through a temporary file and a rename: a desk starting meanwhile (or a
    // second one rebuilding) never imports a half-written bundle.
    write: false,
  })
  mkdirSync(dirname(bundlePath), { recursive: true })
  const tmp = `${bundlePath}.${process.pid}.tmp`
  writeFileSync(tmp, result.outputFiles[0].contents)
  renameSync(tmp, bundlePath)
  // Project sources only: dependencies are covered by the install's lock file.
  const inputs = {}
  for (const file of Object.keys(result.metafile.inputs)) {
    const rel = relative(root, join(process.cwd(), file))
    if (rel.startsWith('..') || rel.split(/[\\/]/).includes('node_modules')) continue
    inputs[rel] = mtime(rel)
  }
  writeFileSync(`${metaPath}.${process.pid}.tmp`, JSON.stringify({ version: pkg.version, ...started, inputs }))
  renameSync(`${metaPath}.${process.pid}.tmp`, metaPath)
  return { version: pkg.version, inputs: Object.keys(inputs).length }
}
