#!/usr/bin/env node
/**
 * `npm test`: the native build for Node, the type check, lint, the unit/integration tests and
 * the end-to-end tests (build, then run), one after the other, then the summary line. A failed
 * step does not stop the later ones (a lint error still lets the tests report), except that the
 * two test steps need better-sqlite3 to load in Node: without it they are reported "not run".
 * The run always ends with `Tests: N passed, N failed, N skipped` and exits 1 when anything failed.
 *
 * For tests of this runner: DESK_TEST_STEPS replaces the steps (JSON, same shape as STEPS) and
 * DESK_TEST_RESULTS the directory the vitest reports are read from.
 */
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RESULTS_DIR, summarize } from './test-summary.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** `needs`: steps that must have passed for this one to mean anything. */
const STEPS = [
  { name: 'native build', command: [process.execPath, 'bin/ensure-native.mjs', 'node'] },
  { name: 'typecheck', command: ['npm', 'run', 'typecheck'] },
  { name: 'lint', command: ['npm', 'run', 'lint'] },
  { name: 'unit', command: ['npm', 'run', 'test:unit'], report: 'unit', needs: ['native build'] },
  { name: 'e2e', command: ['npm', 'run', 'test:e2e'], report: 'e2e', needs: ['native build'] },
]

const steps = process.env.DESK_TEST_STEPS ? JSON.parse(process.env.DESK_TEST_STEPS) : STEPS
const dir = process.env.DESK_TEST_RESULTS || RESULTS_DIR

// A report left by an earlier run must not be counted for a step that crashed before writing one.
for (const s of steps) if (s.report) rmSync(join(dir, `${s.report}.json`), { force: true })

const done = []
let interrupted = false
for (const step of steps) {
  const blocked = (step.needs ?? []).filter((n) => !done.find((d) => d.name === n)?.ok)
  if (interrupted || blocked.length > 0) {
    if (!interrupted) console.error(`\nrun-tests: ${step.name} not run (needs ${blocked.join(', ')})`)
    done.push({ ...step, ran: false, ok: false })
    continue
  }
  console.error(`\nrun-tests: ${step.name}`)
  const [cmd, ...args] = step.command
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env, shell: process.platform === 'win32' })
  if (r.error) console.error(`run-tests: ${step.name} could not start: ${r.error.message}`)
  // Ctrl-C reaches the step too: stop there, but still say where the run got to.
  if (r.signal === 'SIGINT' || r.signal === 'SIGTERM') interrupted = true
  done.push({ ...step, ran: true, ok: r.status === 0 })
}

const { lines, exitCode } = summarize(dir, done)
console.log(lines.join('\n'))
process.exit(exitCode)
