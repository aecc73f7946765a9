#!/usr/bin/env node
// Bundles the `desk` CLI into one ESM file (out/cli/desk.mjs) started by plain node, so no
// TypeScript is compiled at start. Commands import the core lazily (dynamic import), which
// esbuild keeps lazy inside the one file, so `desk --help` evaluates only the router.
import { build } from 'esbuild'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

await build({
  entryPoints: [join(root, 'main/hosts/cli/desk.ts')],
  outfile: join(root, 'out/cli/desk.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Native and optional modules load from the installed package (the app's own node_modules).
  external: ['better-sqlite3', 'bufferutil', 'utf-8-validate', 'electron'],
  // Bundled CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __deskRequire } from 'node:module'; const require = __deskRequire(import.meta.url);" },
  define: { 'process.env.DESK_VERSION': JSON.stringify(pkg.version) },
  legalComments: 'none',
  logLevel: 'warning',
})
