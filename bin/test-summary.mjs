#!/usr/bin/env node
/**
 * The closing line of `npm test`: the unit/integration and end-to-end counts from the vitest
 * JSON reports, and every step that failed without a report of its own (the type check, lint,
 * the native build), as one plain "Tests: N passed, N failed, N skipped" line. A failed step
 * counts as one failure, so the line never reads "0 failed" after a red run.
 * `bin/run-tests.mjs` calls `summarize`; run alone, this reads the two reports as before.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '.tmp', 'test-results')

/**
 * Test files that failed with no failing test of their own (an import or setup error). A failing
 * test also fails its suite, so counting failed suites beside failed tests counted one red test
 * three times.
 */
function filesFailedWithoutTest(r) {
  return (r.testResults ?? []).filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed')).length
}

/**
 * `steps`: what ran, in order: `{ name, report?: 'unit' | 'e2e', ran: boolean, ok: boolean }`.
 * Answers the lines to print and the exit code (non-zero when anything failed or nothing passed).
 */
export function summarize(dir, steps) {
  let passed = 0
  let failed = 0
  let skipped = 0
  const parts = []
  for (const step of steps) {
    if (!step.ran) {
      parts.push(`${step.name} not run`)
      continue
    }
    if (!step.report) {
      if (!step.ok) {
        failed += 1
        parts.push(`${step.name} failed`)
      }
      continue
    }
    const file = join(dir, `${step.report}.json`)
    if (!existsSync(file)) {
      failed += 1
      parts.push(`${step.name} failed (no report)`)
      continue
    }
    const r = JSON.parse(readFileSync(file, 'utf8'))
    const s = {
      passed: r.numPassedTests ?? 0,
      failed: (r.numFailedTests ?? 0) + filesFailedWithoutTest(r),
      skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
    }
    // A red exit with nothing failed in the report (a crash, a coverage or config error) still counts.
    if (!step.ok && s.failed === 0) s.failed = 1
    passed += s.passed
    failed += s.failed
    skipped += s.skipped
    parts.push(`${step.name} ${s.passed} passed, ${s.failed} failed`)
  }
  return {
    lines: ['', parts.join('; '), `Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`],
    exitCode: failed > 0 || passed === 0 ? 1 : 0,
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { lines, exitCode } = summarize(RESULTS_DIR, [
    { name: 'unit', report: 'unit', ran: true, ok: true },
    { name: 'e2e', report: 'e2e', ran: true, ok: true },
  ])
  console.log(lines.join('\n'))
  process.exit(exitCode)
}
