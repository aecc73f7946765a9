#!/usr/bin/env node
// The package's `desk` command. A built checkout (`npm run build`) runs the bundled CLI
// (out/cli/desk.mjs) in this very process: plain node, nothing compiled at start. A source
// checkout without a build falls back to the TypeScript entry under tsx.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bundle = join(root, 'out', 'cli', 'desk.mjs')

if (existsSync(bundle) && process.env.DESK_FROM_SOURCE !== '1') {
  await import(pathToFileURL(bundle).href)
} else {
  const entry = join(root, 'main', 'hosts', 'cli', 'desk.ts')
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), entry, ...process.argv.slice(2)], { stdio: 'inherit' })
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
