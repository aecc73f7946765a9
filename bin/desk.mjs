#!/usr/bin/env node
// The package's `desk` command (and `npm run desk`). It runs the bundled CLI (out/cli/desk.mjs)
// in this very process: plain node, nothing compiled at start. The bundle runs only when its
// build record matches the sources (a few ms of stats); a stale or missing bundle is rebuilt
// first (esbuild, a second or two, said on stderr), or, without esbuild, the TypeScript sources
// run under tsx, also said on stderr. A stale bundle never runs silently.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundlePath, bundleStaleness, buildBundle, entryPath, root } from './cli-bundle.mjs'

// A source checkout may hold better-sqlite3 built for Electron (`npm start`): switch it back to
// node's build first (bin/ensure-native.mjs, a file copy from its cache). One small read when it
// already matches.
if (existsSync(entryPath)) {
  const marker = join(root, 'node_modules', 'better-sqlite3', 'build', 'Release', '.desk-target')
  let current = null
  try {
    current = readFileSync(marker, 'utf8').trim()
  } catch {
    // No marker: ensure-native has never run here; the installed build is whatever npm made.
  }
  if (current !== null && current !== `node-${process.versions.modules}`) {
    const r = spawnSync(process.execPath, [join(root, 'bin', 'ensure-native.mjs'), 'node'], { stdio: ['ignore', 2, 2] })
    if (r.status !== 0) process.exit(r.status ?? 1)
  }
}

const fromSource = process.env.DESK_FROM_SOURCE === '1'
let runBundle = !fromSource
if (runBundle) {
  const stale = bundleStaleness()
  if (stale) {
    try {
      process.stderr.write(`desk: the CLI bundle is out of date (${stale}); rebuilding it\n`)
      await buildBundle()
    } catch (e) {
      process.stderr.write(
        `desk: cannot rebuild the CLI bundle (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); running the sources under tsx (slower start)\n`,
      )
      runBundle = false
    }
  }
}

if (runBundle) {
  await import(pathToFileURL(bundlePath).href)
} else {
  let tsx
  try {
    tsx = import.meta.resolve('tsx')
  } catch {
    process.stderr.write('desk: no CLI bundle and no tsx to run the sources; run `npm run build`\n')
    process.exit(1)
  }
  const child = spawn(process.execPath, ['--import', tsx, entryPath, ...process.argv.slice(2)], { stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    if (signal) {
      // Die of the same signal, so callers see what happened to the CLI.
      process.removeAllListeners(signal)
      process.kill(process.pid, signal)
    } else process.exit(code ?? 1)
  })
  child.on('error', (err) => {
    process.stderr.write(`desk: cannot start the CLI: ${err.message}\n`)
    process.exit(1)
  })
}
