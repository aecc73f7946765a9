/**
 * `npm test`'s runner with stand-in steps: whatever fails, the run ends with the
 * `Tests: N passed, N failed, N skipped` line and a non-zero exit, and names the failed step.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'run-tests-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const node = process.execPath
const exit = (code: number) => [node, '-e', `process.exit(${code})`]
/** A stand-in vitest step: writes its JSON report like vitest does, then exits. */
function vitest(report: string, counts: { passed: number; failed: number; skipped?: number }, code: number) {
  const json = JSON.stringify({
    numPassedTests: counts.passed,
    numFailedTests: counts.failed,
    numFailedTestSuites: 0,
    numPendingTests: counts.skipped ?? 0,
    numTodoTests: 0,
  })
  return [
    node,
    '-e',
    `require('fs').writeFileSync(${JSON.stringify(join(dir, `${report}.json`))}, ${JSON.stringify(json)}); process.exit(${code})`,
  ]
}

function run(steps: unknown[]) {
  const r = spawnSync(node, [join(root, 'bin', 'run-tests.mjs')], {
    cwd: root,
    env: { ...process.env, DESK_TEST_STEPS: JSON.stringify(steps), DESK_TEST_RESULTS: dir },
    encoding: 'utf8',
  })
  const lines = r.stdout.trimEnd().split('\n')
  return { status: r.status, last: lines.at(-1), steps: lines.at(-2), err: r.stderr }
}

describe('npm test runner', () => {
  it('a failed type check still lets the tests run, and the run ends with the summary line and exit 1', () => {
    const r = run([
      { name: 'native build', command: exit(0) },
      { name: 'typecheck', command: exit(2) },
      { name: 'lint', command: exit(0) },
      { name: 'unit', command: vitest('unit', { passed: 3, failed: 0, skipped: 1 }, 0), report: 'unit', needs: ['native build'] },
      { name: 'e2e', command: vitest('e2e', { passed: 2, failed: 1 }, 1), report: 'e2e', needs: ['native build'] },
    ])
    expect(r.status).toBe(1)
    expect(r.steps).toBe('typecheck failed; unit 3 passed, 0 failed; e2e 2 passed, 1 failed')
    expect(r.last).toBe('Tests: 5 passed, 2 failed, 1 skipped')
  })

  it('one red test counts once (vitest also fails its suite and file), and a file that failed to load counts too', () => {
    // The shape vitest's JSON reporter writes: one failing test fails two suites (describe and file).
    const report = {
      numPassedTests: 970,
      numFailedTests: 1,
      numFailedTestSuites: 2,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [
        { status: 'failed', assertionResults: [{ status: 'passed' }, { status: 'failed' }] },
        { status: 'failed', assertionResults: [] },
        { status: 'passed', assertionResults: [{ status: 'passed' }] },
      ],
    }
    const write = [
      node,
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(join(dir, 'unit.json'))}, ${JSON.stringify(JSON.stringify(report))}); process.exit(1)`,
    ]
    const r = run([{ name: 'unit', command: write, report: 'unit' }])
    expect(r.status).toBe(1)
    expect(r.steps).toBe('unit 970 passed, 2 failed')
    expect(r.last).toBe('Tests: 970 passed, 2 failed, 0 skipped')
  })

  it('without the native build the tests are "not run", and a report from an earlier run is not counted', () => {
    writeFileSync(join(dir, 'unit.json'), JSON.stringify({ numPassedTests: 900, numFailedTests: 0 }))
    const r = run([
      { name: 'native build', command: exit(1) },
      { name: 'lint', command: exit(0) },
      { name: 'unit', command: vitest('unit', { passed: 1, failed: 0 }, 0), report: 'unit', needs: ['native build'] },
    ])
    expect(r.status).toBe(1)
    expect(r.steps).toBe('native build failed; unit not run')
    expect(r.last).toBe('Tests: 0 passed, 1 failed, 0 skipped')
    expect(existsSync(join(dir, 'unit.json'))).toBe(false)
    expect(r.err).toMatch(/unit not run \(needs native build\)/)
  })

  it('a test step that exits red without a report counts as a failure', () => {
    const r = run([
      { name: 'unit', command: exit(1), report: 'unit' },
      { name: 'e2e', command: vitest('e2e', { passed: 4, failed: 0 }, 0), report: 'e2e' },
    ])
    expect(r.status).toBe(1)
    expect(r.steps).toBe('unit failed (no report); e2e 4 passed, 0 failed')
    expect(r.last).toBe('Tests: 4 passed, 1 failed, 0 skipped')
  })

  it('all green: exit 0', () => {
    const r = run([
      { name: 'lint', command: exit(0) },
      { name: 'unit', command: vitest('unit', { passed: 7, failed: 0 }, 0), report: 'unit' },
    ])
    expect(r.status).toBe(0)
    expect(r.last).toBe('Tests: 7 passed, 0 failed, 0 skipped')
  })

  it('steps of one group run at the same time, each output printed whole under its name, the summary still last', () => {
    // Each step waits for the other's mark: run one after the other, the first would time out and fail.
    const meets = (me: string, other: string) => [
      node,
      '-e',
      `const fs = require('fs'), p = require('path'), d = ${JSON.stringify(dir)}
       console.log('${me} starts'); fs.writeFileSync(p.join(d, '${me}'), '')
       const until = Date.now() + 10000
       const wait = () => fs.existsSync(p.join(d, '${other}')) ? (console.log('${me} met ${other}'), process.exit(0))
         : Date.now() > until ? process.exit(3) : setTimeout(wait, 20)
       wait()`,
    ]
    const r = spawnSync(node, [join(root, 'bin', 'run-tests.mjs')], {
      cwd: root,
      env: {
        ...process.env,
        DESK_TEST_STEPS: JSON.stringify([
          { name: 'native build', command: exit(0) },
          { name: 'typecheck', command: meets('typecheck', 'lint'), group: 'checks' },
          { name: 'lint', command: meets('lint', 'typecheck'), group: 'checks' },
          { name: 'e2e build', command: exit(1), group: 'checks' },
          { name: 'unit', command: vitest('unit', { passed: 2, failed: 0 }, 0), report: 'unit', needs: ['native build'] },
          { name: 'e2e', command: vitest('e2e', { passed: 1, failed: 0 }, 0), report: 'e2e', needs: ['native build', 'e2e build'] },
        ]),
        DESK_TEST_RESULTS: dir,
      },
      encoding: 'utf8',
    })
    const lines = r.stdout.trimEnd().split('\n')
    expect(r.status).toBe(1)
    // Each step's lines together, never interleaved with the other's.
    const out = lines.filter((l) => /^(typecheck|lint) /.test(l))
    expect(out).toHaveLength(4)
    expect(out.indexOf('typecheck met lint') - out.indexOf('typecheck starts')).toBe(1)
    expect(out.indexOf('lint met typecheck') - out.indexOf('lint starts')).toBe(1)
    expect(r.stderr).toMatch(/run-tests: typecheck, lint, e2e build at the same time/)
    expect(r.stderr).toMatch(/run-tests: e2e build \(failed, exit 1\)/)
    expect(r.stderr).toMatch(/e2e not run \(needs e2e build\)/)
    expect(lines.at(-2)).toBe('e2e build failed; unit 2 passed, 0 failed; e2e not run')
    expect(lines.at(-1)).toBe('Tests: 2 passed, 1 failed, 0 skipped')
  })

  it('npm test runs through the runner', async () => {
    const pkg = (await import('../package.json', { with: { type: 'json' } })).default as { scripts: Record<string, string> }
    expect(pkg.scripts.test).toBe('node bin/run-tests.mjs')
  })
})
