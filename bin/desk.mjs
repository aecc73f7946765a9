#!/usr/bin/env node
// The package's `desk` command: runs the TypeScript CLI (main/hosts/cli/desk.ts) under tsx,
// with paths resolved from this package rather than the caller's working directory.
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const entry = join(root, 'main', 'hosts', 'cli', 'desk.ts')
const tsx = import.meta.resolve('tsx')

const child = spawn(process.execPath, ['--import', tsx, entry, ...process.argv.slice(2)], { stdio: 'inherit' })
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal))
}
child.on('exit', (code, signal) => {
  if (signal) {
    // Die of the same signal, so callers see what happened to the CLI.
    process.removeAllListeners(signal)
    process.kill(process.pid, signal)
  }
  else process.exit(code ?? 1)
})
child.on('error', (err) => {
  process.stderr.write(`desk: cannot start the CLI: ${err.message}\n`)
  process.exit(1)
})
