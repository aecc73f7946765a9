/**
 * Runs every benchmark in bench/ (files named `*.bench.ts`, each default-exporting an async
 * function that returns a BenchResult) one after another. Human lines (each figure beside its
 * goal, ratio and noise) go to stderr; one JSON summary goes to stdout. The exit code is 1 when a
 * benchmark throws, returns no figures, or a figure misses its goal by more than the noise it
 * reports. The whole run is itself a judged figure, `bench.total_seconds` <= 300 (the build that
 * `npm run bench` ran first included, passed in BENCH_BUILD_SECONDS by bin/bench.mjs).
 */
import { readdirSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describeFigure, fromValue } from './judge'
import type { BenchResult } from './types'

const dir = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
/** Goal for the whole `npm run bench`: five minutes, build included. */
const TOTAL_GOAL_S = 300
const buildSeconds = Number(process.env.BENCH_BUILD_SECONDS ?? 0) || 0
/**
 * Benchmarks that take many minutes at their scale (200 accounts) run only when named
 * (`npm run bench -- scale`), so the default run keeps its five-minute goal; so does the team
 * bench at 10 desks and 1,000 proposals (`npm run bench -- team-scale`, a minute and more).
 */
const NAMED_ONLY = ['scale', 'team-scale']
const all = readdirSync(dir).filter((f) => f.endsWith('.bench.ts'))
// A name that is a whole bench's name runs that bench alone (`scale` is not `team-scale`); any other
// word runs every bench whose file name contains it.
const matches = (o: string, f: string) => (all.includes(`${o}.bench.ts`) ? f === `${o}.bench.ts` : f.includes(o))
const files = all
  .filter((f) => (only.length === 0 ? !NAMED_ONLY.some((n) => f === `${n}.bench.ts`) : only.some((o) => matches(o, f))))
  .sort()

const t0 = performance.now()
const load0 = loadavg()[0]
const results: Record<string, (BenchResult & { seconds: number }) | { error: string; seconds: number }> = {}
const failures: string[] = []
for (const f of files) {
  const name = f.replace(/\.bench\.ts$/, '')
  process.stderr.write(`bench ${name}…\n`)
  const b0 = performance.now()
  try {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { default: () => Promise<BenchResult> }
    const r = await mod.default()
    const seconds = Number(((performance.now() - b0) / 1000).toFixed(1))
    results[name] = { ...r, seconds }
    // A benchmark that measured nothing must not pass silently.
    if (!Array.isArray(r.figures) || r.figures.length === 0) failures.push(`${name}: produced no figures`)
    for (const fig of r.figures) {
      process.stderr.write(describeFigure(name, fig) + '\n')
      if (fig.verdict === 'MISSED')
        failures.push(
          `${name}.${fig.name}: ${fig.value} ${fig.unit} misses its goal ${fig.better === 'lower' ? '<=' : '>='} ${fig.goal} by more than its noise ±${fig.noise}`,
        )
    }
    process.stderr.write(`  (${seconds} s)\n`)
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    results[name] = { error: message, seconds: Number(((performance.now() - b0) / 1000).toFixed(1)) }
    failures.push(`${name}: error: ${message}`)
    process.stderr.write(`FAIL ${name}: ${message}\n`)
  }
}
if (files.length === 0) failures.push(`no benchmark matches ${only.join(' ')}`)
const totalSeconds = Number(((performance.now() - t0) / 1000 + buildSeconds).toFixed(1))
const total = fromValue(
  {
    name: 'total_seconds',
    what: `the whole bench run${buildSeconds ? `, ${buildSeconds} s of build included` : ''}${only.length ? ` (only: ${only.join(' ')})` : ''}`,
    unit: 's',
    goal: TOTAL_GOAL_S,
    better: 'lower',
    clock: 'wall',
  },
  totalSeconds,
  0,
  'one run (no noise allowance)',
  [totalSeconds],
)
process.stderr.write(describeFigure('bench', total) + '\n')
if (total.verdict === 'MISSED') failures.push(`bench.total_seconds: ${totalSeconds} s exceeds ${TOTAL_GOAL_S} s`)
const summary = {
  machine: {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: cpus().length,
    loadavg_1m_start: load0,
    loadavg_1m_end: loadavg()[0],
  },
  total_seconds: totalSeconds,
  build_seconds: buildSeconds,
  total,
  passed: failures.length === 0,
  failures,
  results,
}
process.stdout.write(JSON.stringify(summary, null, 2) + '\n')
for (const line of failures) process.stderr.write(`BENCH FAILED: ${line}\n`)
process.stderr.write(
  failures.length === 0
    ? `bench passed: every figure meets its goal or misses it by less than its noise (${totalSeconds} s)\n`
    : `bench FAILED: ${failures.length} figure(s) (${totalSeconds} s)\n`,
)
process.exit(failures.length === 0 ? 0 : 1)
