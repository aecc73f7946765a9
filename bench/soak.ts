/**
 * Memory soak: `npm run soak -- --minutes N` (or `npx tsx bench/soak.ts --minutes N`).
 * The driver starts a LIVE sandbox in this process (moving marks, the scenario's bot trading,
 * default rate limits), funds 20 accounts and forks the core into a child process with the
 * overview push on; every second it deposits into one account (frames, overview patches) and the
 * child reports its RSS and heap every SAMPLE_MS. Growth is judged on the child alone.
 * Goal: RSS at the end ≤ 1.10x RSS after the warm-up (5 minutes; the first quarter for N < 10),
 * each side the median of a quarter of the steady samples, with the noise taken from the scatter
 * around a fitted line (a steady leak is slope, so it cannot hide in the noise); and the growth
 * along that line across the steady window, judged against the same 1.10x with its standard error;
 * and the JS heap after a full collection (the child collects before each sample), end against
 * reference like RSS: memory the allocator returns to the system cannot hide a leak there.
 * Prints one JSON object on stdout; `--json-only` drops the human lines on stderr.
 */
import { fork } from 'node:child_process'
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { fromValue, median, type Figure } from './judge'
import { BENCH_PASSPHRASE, call, openCore, prepareDataDir, startLiveSandbox, urlsOf, type SandboxUrls } from './desk-fixture'

const SAMPLE_MS = 2000
export const GROWTH_GOAL = 1.1

interface Sample {
  t: number
  rss: number
  heap: number
  pushes: number
}

export interface SoakReport {
  minutes: number
  comparison: string
  samples: Sample[]
  figure: Figure
  /** The growth along the line fitted through the steady samples. */
  projection: Figure
  /** The collected JS heap, end against reference. */
  heapFigure: Figure
  pushes: number
  deposits: number
  bot_fills: number
}

/** The child: the core over the prepared data dir, unlocked, overview push on; reports memory. */
async function child(dataDir: string, urls: SandboxUrls): Promise<void> {
  const core = await openCore(dataDir, urls, 5000)
  await call(core, 'vault.unlock', { passphrase: BENCH_PASSPHRASE })
  let pushes = 0
  core.events.subscribe((event) => {
    if (event === 'state.overview') pushes++
  })
  await call(core, 'portfolio.overview')
  const t0 = Date.now()
  const report = () => {
    // A full collection before each sample: what is left is what the core holds on to, so the
    // series shows a leak instead of where the collector happened to be in its cycle.
    ;(globalThis as { gc?: () => void }).gc?.()
    const m = process.memoryUsage()
    process.send?.({ t: Date.now() - t0, rss: m.rss, heap: m.heapUsed, pushes })
  }
  report()
  setInterval(report, SAMPLE_MS)
  process.on('message', (m) => {
    if (m === 'stop') void core.close().finally(() => process.exit(0))
  })
}

const MB = 1024 * 1024

/** Least-squares line y = intercept + slope x, with the slope's standard error. */
export function linearFit(xs: readonly number[], ys: readonly number[]): { slope: number; intercept: number; slopeSe: number } {
  const n = xs.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let sxx = 0
  let sxy = 0
  for (let i = 0; i < n; i++) {
    sxx += (xs[i]! - mx) ** 2
    sxy += (xs[i]! - mx) * (ys[i]! - my)
  }
  const slope = sxx > 0 ? sxy / sxx : 0
  const intercept = my - slope * mx
  let sse = 0
  for (let i = 0; i < n; i++) sse += (ys[i]! - (intercept + slope * xs[i]!)) ** 2
  const slopeSe = n > 2 && sxx > 0 ? Math.sqrt(sse / (n - 2) / sxx) : Infinity
  return { slope, intercept, slopeSe }
}

/** Runs the soak for `minutes` and judges growth. */
export async function soak(minutes: number, log: (line: string) => void = (l) => process.stderr.write(l + '\n')): Promise<SoakReport> {
  const sandbox = await startLiveSandbox()
  const { dataDir, extra } = await prepareDataDir(sandbox)
  const fillsBefore = sandbox.trading.groundTruth().length
  const samples: Sample[] = []
  let deposits = 0
  const proc = fork(fileURLToPath(import.meta.url), ['--child', dataDir, JSON.stringify(urlsOf(sandbox))], { execArgv: [...process.execArgv, '--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  try {
    const durationMs = minutes * 60_000
    await new Promise<void>((resolve, reject) => {
      let feeder: ReturnType<typeof setInterval> | null = null
      proc.on('message', (m) => {
        const s = m as Sample
        samples.push(s)
        if (samples.length === 1) {
          // The clock starts once the core is up and the first overview is in.
          feeder = setInterval(() => {
            const a = extra[deposits % extra.length]!
            sandbox.trading.deposit(a.address, 1, BigInt(1 + (deposits % 7)) * 10n ** 8n)
            deposits++
          }, 1000)
        }
        if (samples.length % 15 === 0) log(`soak ${(s.t / 1000).toFixed(0)} s: rss ${(s.rss / MB).toFixed(1)} MB, heap ${(s.heap / MB).toFixed(1)} MB, ${s.pushes} overview pushes`)
        if (s.t >= durationMs) {
          if (feeder) clearInterval(feeder)
          resolve()
        }
      })
      proc.on('exit', (code) => reject(new Error(`the soak child exited early (code ${code})`)))
    })
  } finally {
    proc.removeAllListeners('exit')
    proc.send('stop')
    await new Promise((r) => {
      const k = setTimeout(() => proc.kill('SIGKILL'), 10_000)
      proc.once('exit', () => {
        clearTimeout(k)
        r(null)
      })
    })
    await sandbox.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  const end = samples[samples.length - 1]!
  const durationMs = minutes * 60_000
  const long = minutes >= 10
  // Warm-up: the first quarter (short runs) or 5 minutes (long ones) are the core filling its
  // caches, not a leak; every judgement starts after it.
  const warmMs = long ? 5 * 60_000 : durationMs / 4
  const steady = samples.filter((s) => s.t >= warmMs)
  if (steady.length < 8) throw new Error(`the soak took ${steady.length} samples after its warm-up; at least 8 are needed`)
  // Reference: the median of the samples in the first quarter after the warm-up (one sample is a
  // point on the GC's sawtooth); end: the median of the last quarter of the run.
  const span = (durationMs - warmMs) / 4
  const refSet = steady.filter((s) => s.t < warmMs + span)
  const tail = samples.filter((s) => s.t >= durationMs - span)
  const ref = median(refSet.map((s) => s.rss))
  const endRss = median(tail.map((s) => s.rss))
  // Noise: the scatter of RSS around a straight line fitted through the steady samples. A steady
  // leak is the line's slope, not scatter, so it cannot widen its own allowance.
  const fit = linearFit(steady.map((s) => s.t), steady.map((s) => s.rss))
  const resid = steady.map((s) => (s.rss - (fit.intercept + fit.slope * s.t)) / ref)
  const m = median(resid)
  const scatter = 1.4826 * median(resid.map((x) => Math.abs(x - m)))
  const comparison = `median RSS of the last ${tail.length} samples (${(durationMs - span) / 1000}-${durationMs / 1000} s) over the median of the first ${refSet.length} after a ${warmMs / 1000} s warm-up`
  const figure = fromValue(
    { name: `rss_growth_${minutes}min`, what: `child core RSS growth under a live sandbox (moving marks, bot trading, 20 accounts, a deposit a second, overview push on): ${comparison}`, unit: 'x', goal: GROWTH_GOAL, better: 'lower', clock: 'rss' },
    endRss / ref,
    scatter,
    `1.4826 x MAD of the steady samples' residuals around a fitted line, relative to the reference (${steady.length} samples every ${SAMPLE_MS / 1000} s)`,
    steady.map((s) => s.rss / ref),
  )
  // The fitted line's growth across the steady window: every steady sample weighs in, so a leak
  // shows even where the two medians above happen to fall on a GC's trough and peak. Its noise is
  // twice the slope's standard error over the same window.
  const windowMs = durationMs - warmMs
  const projection = fromValue(
    { name: `rss_trend_${minutes}min`, what: `RSS growth along the line fitted through the steady samples (${((fit.slope * 60_000) / MB).toFixed(2)} MB/min) across the ${windowMs / 1000} s after the warm-up, relative to the reference`, unit: 'x', goal: GROWTH_GOAL, better: 'lower', clock: 'rss' },
    1 + (fit.slope * windowMs) / ref,
    (2 * fit.slopeSe * windowMs) / ref,
    `2 x the slope's standard error over the window (${steady.length} samples)`,
    steady.map((s) => s.rss / ref),
  )
  // The JS heap after a full collection (the child collects before each sample): RSS also moves
  // with memory the allocator hands back to the system, which can hide a slow leak; the
  // collected heap is what the core's objects hold, judged the same way.
  const heapRef = median(refSet.map((s) => s.heap))
  const heapEnd = median(tail.map((s) => s.heap))
  const heapFit = linearFit(steady.map((s) => s.t), steady.map((s) => s.heap))
  const heapResid = steady.map((s) => (s.heap - (heapFit.intercept + heapFit.slope * s.t)) / heapRef)
  const hm = median(heapResid)
  const heapFigure = fromValue(
    { name: `heap_growth_${minutes}min`, what: `child core JS heap after a full collection, same windows: ${comparison}`, unit: 'x', goal: GROWTH_GOAL, better: 'lower', clock: 'rss' },
    heapEnd / heapRef,
    1.4826 * median(heapResid.map((x) => Math.abs(x - hm))),
    `1.4826 x MAD of the steady heap samples' residuals around a fitted line, relative to the reference (${steady.length} samples)`,
    steady.map((s) => s.heap / heapRef),
  )
  return {
    minutes,
    comparison,
    samples: samples.map((s) => ({ t: s.t, rss: Math.round(s.rss / 1024), heap: Math.round(s.heap / 1024), pushes: s.pushes })),
    figure,
    projection,
    heapFigure,
    pushes: end.pushes,
    deposits,
    bot_fills: sandbox.trading.groundTruth().length - fillsBefore,
  }
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  const args = process.argv.slice(2)
  if (args[0] === '--child') {
    await child(args[1]!, JSON.parse(args[2]!) as SandboxUrls)
  } else {
    const i = args.indexOf('--minutes')
    const minutes = i >= 0 ? Number(args[i + 1]) : 1
    if (!Number.isFinite(minutes) || minutes <= 0) {
      process.stderr.write('usage: soak --minutes N (N > 0)\n')
      process.exit(2)
    }
    const quiet = args.includes('--json-only')
    const r = await soak(minutes, quiet ? () => {} : undefined)
    const f = r.figure
    const p = r.projection
    if (!quiet) {
      process.stderr.write(`soak: ${f.value}x (goal <= ${f.goal}x, noise ±${f.noise}) ${f.verdict}: ${r.comparison}; ${r.pushes} overview pushes, ${r.deposits} deposits, ${r.bot_fills} executed transactions\n`)
      process.stderr.write(`soak: heap ${r.heapFigure.value}x (goal <= ${r.heapFigure.goal}x, noise ±${r.heapFigure.noise}) ${r.heapFigure.verdict}\n`)
      process.stderr.write(`soak: trend ${p.value}x (goal <= ${p.goal}x, noise ±${p.noise}) ${p.verdict}: ${p.what}\n`)
    }
    process.stdout.write(JSON.stringify(r) + '\n')
    process.exit([f, p, r.heapFigure].some((x) => x.verdict === 'MISSED') ? 1 : 0)
  }
}
