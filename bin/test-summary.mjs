#!/usr/bin/env node
/**
 * Prints the closing line of `npm test`: the unit/integration and end-to-end counts from the
 * vitest JSON reports, as one plain "N passed, N failed" line. Exits non-zero when a report is
 * missing, when anything failed, or when no test ran at all.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '.tmp', 'test-results')
let passed = 0
let failed = 0
let skipped = 0
const parts = []
for (const suite of ['unit', 'e2e']) {
  const file = join(dir, `${suite}.json`)
  if (!existsSync(file)) {
    console.error(`test-summary: ${file} is missing (did the ${suite} run happen?)`)
    process.exit(1)
  }
  const r = JSON.parse(readFileSync(file, 'utf8'))
  const s = { passed: r.numPassedTests ?? 0, failed: (r.numFailedTests ?? 0) + (r.numFailedTestSuites ?? 0), skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0) }
  passed += s.passed
  failed += s.failed
  skipped += s.skipped
  parts.push(`${suite} ${s.passed} passed, ${s.failed} failed`)
}
console.log(`\n${parts.join('; ')}`)
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
