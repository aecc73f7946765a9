/**
 * What the desktop app needs before better-sqlite3 is switched to Electron's build: Electron's
 * own binary (fetched on first use since electron 36; never at install time) and, to compile
 * for Electron's ABI, Electron's headers. Each check answers null (fine) or the one line to
 * print, so `npm start` on a machine that cannot download them says what is missing and what
 * runs instead, with no stack trace and with the Node build of better-sqlite3 left in place.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, relative } from 'node:path'

export const WEB_HINT = '`npm run web` runs the same console in a browser'

/** "npm start", "npm run dist"…: the command the operator typed, for the message. */
export function commandName(env = process.env) {
  const ev = env.npm_lifecycle_event
  if (!ev) return 'the desktop app'
  return ev === 'start' || ev === 'test' ? `npm ${ev}` : `npm run ${ev}`
}

/** The Electron executable `electron .` would start, or null when it is not installed (as electron/index.js decides). */
export function electronExecutable(electronDir, env = process.env) {
  const pathFile = join(electronDir, 'path.txt')
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(env.ELECTRON_OVERRIDE_DIST_PATH, rel || 'electron')
    return existsSync(p) ? p : null
  }
  if (!rel) return null
  const p = join(electronDir, 'dist', rel)
  return existsSync(p) ? p : null
}

function writeLog(root, name, text) {
  const file = join(root, '.tmp', name)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  return relative(root, file)
}

/**
 * Null when Electron's binary is there, else fetches it the way electron itself would (its
 * install.js, output kept in .tmp/electron-install.log) and answers the line to print when that
 * fails too. `install` is replaceable for tests.
 */
export function electronBinaryProblem(root, require, env = process.env, install = defaultInstall) {
  let electronDir
  try {
    electronDir = dirname(require.resolve('electron/package.json'))
  } catch {
    return `${commandName(env)}: Electron is not installed (no node_modules/electron; run \`npm install\`); ${WEB_HINT}`
  }
  if (electronExecutable(electronDir, env)) return null
  const r = install(electronDir, env)
  if (r.status === 0 && electronExecutable(electronDir, env)) return null
  const log = writeLog(root, 'electron-install.log', r.output)
  return `${commandName(env)}: Electron's binary is missing (node_modules/electron/dist) and could not be downloaded (details in ${log}); ${WEB_HINT}`
}

function defaultInstall(electronDir, env) {
  const r = spawnSync(process.execPath, [join(electronDir, 'install.js')], {
    cwd: electronDir,
    env,
    encoding: 'utf8',
    timeout: 10 * 60_000,
  })
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` }
}

/** Where @electron/rebuild takes its headers from (its CLI reads the same variable). */
export function headersBaseUrl(env = process.env) {
  return (env.ELECTRON_REBUILD_DIST_URL || 'https://www.electronjs.org/headers').replace(/\/+$/, '')
}

/**
 * Null when Electron's headers are in node-gyp's cache (~/.electron-gyp) or can be fetched;
 * else the line to print. Checked before the rebuild, which would first delete the current
 * build of better-sqlite3.
 */
export async function electronHeadersProblem(version, env = process.env, timeoutMs = 15_000) {
  const cached = join(homedir(), '.electron-gyp', version, 'include', 'node', 'node.h')
  if (existsSync(cached)) return null
  const url = `${headersBaseUrl(env)}/v${version}/node-v${version}-headers.tar.gz`
  const ac = new AbortController()
  const timer = setTimeout(() => ac.abort(), timeoutMs)
  let why
  try {
    // Any HTTP answer means the host is reachable: the rebuild decides the rest (and is undone if it fails).
    await fetch(url, { method: 'HEAD', signal: ac.signal, redirect: 'follow' })
    return null
  } catch (e) {
    why = ac.signal.aborted ? `no answer within ${timeoutMs / 1000} s` : (e?.cause?.code ?? e?.message ?? 'unreachable')
  } finally {
    clearTimeout(timer)
  }
  return `${commandName(env)}: cannot build better-sqlite3 for Electron ${version}: its headers could not be downloaded from ${headersBaseUrl(env)} (${why}); ${WEB_HINT}`
}

/**
 * @electron/rebuild's CLI. The package exports only `./lib/main.js`, so its package.json cannot
 * be resolved; the CLI sits beside the exported entry.
 */
export function electronRebuildCli(require) {
  const cli = join(dirname(require.resolve('@electron/rebuild')), 'cli.js')
  if (!existsSync(cli)) throw new Error(`@electron/rebuild has no CLI at ${cli}`)
  return cli
}

/** Runs the rebuild with its output kept in a log; the line to print on failure, else null. */
export function runElectronRebuild(root, require, version, env = process.env) {
  // An npm `nodedir` (set for offline Node builds) would make node-gyp compile against Node's
  // headers and call the result an Electron build: Electron's headers only.
  const clean = Object.fromEntries(Object.entries(env).filter(([k]) => k.toLowerCase() !== 'npm_config_nodedir'))
  const r = spawnSync(process.execPath, [electronRebuildCli(require), '--force', '--only', 'better-sqlite3', '--version', version], {
    cwd: root,
    env: clean,
    encoding: 'utf8',
  })
  if (r.status === 0) return null
  const log = writeLog(root, 'electron-rebuild.log', `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`)
  return `${commandName(env)}: rebuilding better-sqlite3 for Electron ${version} failed (details in ${log}); ${WEB_HINT}`
}
