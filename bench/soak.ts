/**
 * Memory soak: `npm run soak -- --minutes N` (or `npx tsx bench/soak.ts --minutes N`).
 * The driver starts a LIVE sandbox in this process (moving marks, the scenario's bot trading,
 * default rate limits), funds 20 accounts and forks the core into a child process with the
 * overview push on; every second it deposits into one account (frames, overview patches) and the
 * child reports its RSS and heap every SAMPLE_MS. Growth is judged on the child alone.
 * Goal: RSS at the end ≤ 1.10x RSS at 5 minutes; for N < 10 the second half is compared with
 * the first quarter instead (the end of the first quarter against the median of the second half).
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

/** Runs the soak for `minutes` and judges growth. */
export async function soak(minutes: number, log: (line: string) => void = (l) => process.stderr.write(l + '\n')): Promise<SoakReport> {
  const sandbox = await startLiveSandbox()
  const { dataDir, extra } = await prepareDataDir(sandbox)
  const fillsBefore = sandbox.trading.groundTruth().length
  const samples: Sample[] = []
  let deposits = 0
  const proc = fork(fileURLToPath(import.meta.url), ['--child', dataDir, JSON.stringify(urlsOf(sandbox))], { execArgv: process.execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
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
  const long = minutes >= 10
  // Reference: RSS at 5 min (long soaks) or at the end of the first quarter; "end": the last sample (long) or the median of the second half.
  const refAt = long ? 5 * 60_000 : (minutes * 60_000) / 4
  const ref = samples.reduce((best, s) => (Math.abs(s.t - refAt) < Math.abs(best.t - refAt) ? s : best), samples[0]!)
  const tail = samples.filter((s) => s.t >= (minutes * 60_000) / 2)
  const endRss = long ? end.rss : median(tail.map((s) => s.rss))
  // Noise: the spread (1.4826 x MAD) of the second half's RSS relative to the reference.
  const rel = tail.map((s) => s.rss / ref.rss)
  const m = median(rel)
  const noise = 1.4826 * median(rel.map((x) => Math.abs(x - m)))
  const comparison = long
    ? `RSS of the last sample (${(end.t / 60_000).toFixed(1)} min) over RSS at 5 min`
    : `median RSS of the second half (${tail.length} samples) over RSS at the end of the first quarter (${(ref.t / 1000).toFixed(0)} s): the run is shorter than 10 minutes, so the 5-minute comparison is replaced`
  const figure = fromValue(
    { name: `rss_growth_${minutes}min`, what: `child core RSS growth under a live sandbox (moving marks, bot trading, 20 accounts, a deposit a second, overview push on): ${comparison}`, unit: 'x', goal: GROWTH_GOAL, better: 'lower', clock: 'rss' },
    endRss / ref.rss,
    noise,
    `1.4826 x MAD of second-half RSS relative to the reference (${tail.length} samples every ${SAMPLE_MS / 1000} s)`,
    rel,
  )
  return {
    minutes,
    comparison,
    samples: samples.map((s) => ({ t: s.t, rss: Math.round(s.rss / 1024), heap: Math.round(s.heap / 1024), pushes: s.pushes })),
    figure,
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
    if (!quiet) process.stderr.write(`soak: ${f.value}x (goal <= ${f.goal}x, noise ±${f.noise}) ${f.verdict}: ${r.comparison}; ${r.pushes} overview pushes, ${r.deposits} deposits, ${r.bot_fills} executed transactions\n`)
    process.stdout.write(JSON.stringify(r) + '\n')
    process.exit(f.verdict === 'MISSED' ? 1 : 0)
  }
}
