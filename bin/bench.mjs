#!/usr/bin/env node
// `npm run bench [-- NAME…]`: matches the native binding to node, builds the app and the CLI
// unless out/ is already newer than every source it is built from (one stat per file, well
// under a second), then runs bench/run.ts, telling it how long the build took (the five-minute
// goal covers the whole command).
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { root } from './cli-bundle.mjs'

const SOURCES = ['main', 'preload', 'renderer', 'sandbox']
const ROOT_FILES = ['package.json', 'electron.vite.config.ts', 'tsconfig.json', join('node_modules', '.package-lock.json')]
const OUTPUTS = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/renderer-web/index.html', 'out/cli/desk.mjs']

function newest(dir) {
  let max = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue
    const p = join(dir, e.name)
    max = Math.max(max, e.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return max
}

function outOfDate() {
  let oldestOut = Infinity
  for (const f of OUTPUTS) {
    try {
      oldestOut = Math.min(oldestOut, statSync(join(root, f)).mtimeMs)
    } catch {
      return `${f} is missing`
    }
  }
  for (const f of ROOT_FILES) {
    try {
      if (statSync(join(root, f)).mtimeMs > oldestOut) return `${f} changed`
    } catch {
      // not in this checkout
    }
  }
  for (const d of SOURCES) if (newest(join(root, d)) > oldestOut) return `${d}/ changed`
  return null
}

const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32', ...opts })
const native = run(process.execPath, [join(root, 'bin/ensure-native.mjs'), 'node'], { stdio: ['ignore', 2, 2] })
if (native.status !== 0) process.exit(native.status ?? 1)

const t0 = performance.now()
const stale = outOfDate()
if (stale) {
  process.stderr.write(`bench: building (${stale})\n`)
  const b = run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { stdio: ['ignore', 2, 2] })
  if (b.status !== 0) process.exit(b.status ?? 1)
} else process.stderr.write('bench: out/ is newer than every source; not rebuilding\n')
const buildSeconds = ((performance.now() - t0) / 1000).toFixed(1)

const r = run(process.execPath, ['--import', import.meta.resolve('tsx'), join(root, 'bench/run.ts'), ...process.argv.slice(2)], {
  env: { ...process.env, BENCH_BUILD_SECONDS: buildSeconds },
})
process.exit(r.status ?? 1)
