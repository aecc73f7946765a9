#!/usr/bin/env node
/**
 * `npm test`: the native build for Node; then the type check, lint and the end-to-end build at
 * the same time (single-threaded tools: together they keep both cores of a small CI machine busy;
 * each one's output is held and printed whole, under its name, when it ends); then the
 * unit/integration tests and the end-to-end tests; then the summary line. A failed step does
 * not stop the later ones (a lint error still lets the tests report), except that the two test
 * steps need better-sqlite3 to load in Node, and the end-to-end tests their build: without it
 * they are reported "not run". The run always ends with `Tests: N passed, N failed, N skipped`
 * and exits 1 when anything failed.
 *
 * For tests of this runner: DESK_TEST_STEPS replaces the steps (JSON, same shape as STEPS) and
 * DESK_TEST_RESULTS the directory the vitest reports are read from.
 */
import { spawn, spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RESULTS_DIR, summarize } from './test-summary.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * `needs`: steps that must have passed for this one to mean anything. `group`: consecutive steps
 * of one group run at the same time (none of them reads what another writes: out/ is ignored by
 * the type check and lint); the tests never share the machine with another step.
 */
const STEPS = [
  { name: 'native build', command: [process.execPath, 'bin/ensure-native.mjs', 'node'] },
  { name: 'typecheck', command: ['npm', 'run', 'typecheck'], group: 'checks' },
  { name: 'lint', command: ['npm', 'run', 'lint'], group: 'checks' },
  { name: 'e2e build', command: ['npm', 'run', 'build'], group: 'checks' },
  { name: 'unit', command: ['npm', 'run', 'test:unit'], report: 'unit', needs: ['native build'] },
  // `npm run test:e2e` is this build and this run; the build ran with the checks above.
  {
    name: 'e2e',
    command: ['npx', 'vitest', 'run', '--config', 'e2e/vitest.config.ts'],
    report: 'e2e',
    needs: ['native build', 'e2e build'],
  },
]

const steps = process.env.DESK_TEST_STEPS ? JSON.parse(process.env.DESK_TEST_STEPS) : STEPS
const dir = process.env.DESK_TEST_RESULTS || RESULTS_DIR

// A report left by an earlier run must not be counted for a step that crashed before writing one.
for (const s of steps) if (s.report) rmSync(join(dir, `${s.report}.json`), { force: true })

const done = []
let interrupted = false

/** A step whose needs failed (or a run that was interrupted) is "not run": answers that entry, or null when it may run. */
function notRun(step) {
  const blocked = (step.needs ?? []).filter((n) => !done.find((d) => d.name === n)?.ok)
  if (!interrupted && blocked.length === 0) return null
  if (!interrupted) console.error(`\nrun-tests: ${step.name} not run (needs ${blocked.join(', ')})`)
  return { ...step, ran: false, ok: false }
}

function finished(step, r) {
  if (r.error) console.error(`run-tests: ${step.name} could not start: ${r.error.message}`)
  // Ctrl-C reaches the step too: stop there, but still say where the run got to.
  if (r.signal === 'SIGINT' || r.signal === 'SIGTERM') interrupted = true
  return { ...step, ran: true, ok: r.status === 0 }
}

/** One step with the terminal to itself. */
function runAlone(step) {
  console.error(`\nrun-tests: ${step.name}`)
  const [cmd, ...args] = step.command
  return finished(step, spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env, shell: process.platform === 'win32' }))
}

/** One step of a group: its output (stdout and stderr, in arrival order) is printed whole when it ends. */
function runHeld(step) {
  return new Promise((resolve) => {
    const [cmd, ...args] = step.command
    const out = []
    let error
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: process.env, shell: process.platform === 'win32' })
    child.stdout.on('data', (b) => out.push(b))
    child.stderr.on('data', (b) => out.push(b))
    child.on('error', (e) => (error = e))
    child.on('close', (status, signal) => {
      const how = status === 0 ? 'passed' : signal ? `stopped by ${signal}` : `failed, exit ${status}`
      console.error(`\nrun-tests: ${step.name} (${how})`)
      process.stdout.write(Buffer.concat(out))
      resolve(finished(step, { status, signal, error }))
    })
  })
}

/** Steps at the same time; their entries keep the steps' order. */
async function runTogether(batch) {
  const entries = batch.map(notRun)
  const go = batch.filter((_, k) => entries[k] === null)
  if (go.length > 0) {
    console.error(`\nrun-tests: ${go.map((s) => s.name).join(', ')} at the same time (each one's output follows when it ends)`)
    // Ctrl-C reaches the steps: this process waits for them to stop, then says where the run got to.
    const hold = () => {}
    process.on('SIGINT', hold)
    const results = await Promise.all(go.map(runHeld))
    process.off('SIGINT', hold)
    go.forEach((step, k) => (entries[batch.indexOf(step)] = results[k]))
  }
  done.push(...entries)
}

for (let i = 0; i < steps.length;) {
  const step = steps[i]
  let j = i + 1
  if (step.group !== undefined) while (j < steps.length && steps[j].group === step.group) j++
  if (j - i > 1) await runTogether(steps.slice(i, j))
  else done.push(notRun(step) ?? runAlone(step))
  i = j
}

const { lines, exitCode } = summarize(dir, done)
console.log(lines.join('\n'))
process.exit(exitCode)
