/**
 * Stream ingest: frames per second through the pool's path (lossless parse, schema validation,
 * fill dedupe on (user, tid), state update and per-topic coalescing) against a bare
 * `JSON.parse` loop over the same frames.
 */
import { realClock } from '../main/core/streams/clock'
import { StreamPool } from '../main/core/streams/pool'
import { fromRuns } from './judge'
import type { BenchResult } from './types'

const USERS = Array.from({ length: 20 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`)

/** `vary`: every snapshot frame differs from the one before (no exact repeats to skip). */
function frames(n: number, vary = false): string[] {
  const out: string[] = []
  let tid = 9_007_199_254_740_000n // crosses 2^53 during the run
  for (let i = 0; i < n; i++) {
    const user = USERS[Math.floor(i / 4) % USERS.length]!
    const k = i % 4
    if (k === 0) {
      const fills: string[] = []
      for (let j = 0; j < 3; j++) {
        // one fill in ten is a replay of an earlier tid (snapshot overlap, backfill)
        const t = j === 2 && i % 10 === 0 ? tid - 5n : ++tid
        fills.push(
          `{"coin":"1","px":"65010.5","sz":"0.02","side":"B","time":${1_700_000_000_000 + i},"oid":${100000 + i},"crossed":true,"fee":"0.0000004","feeToken":"3","tid":${t},"cloid":null}`,
        )
      }
      out.push(`{"channel":"userFills","data":{"user":"${user}","fills":[${fills.join(',')}]}}`)
    } else if (k === 1) {
      out.push(
        `{"channel":"spotState","data":{"user":"${user}","balances":[{"coin":"USDC","token":1,"total":"${vary ? 250000 + i : 250000}.12345678","hold":"3050"},{"coin":"BTC","token":3,"total":"2.5","hold":"0"},{"coin":"ETH","token":4,"total":"40","hold":"1.5"}]}}`,
      )
    } else if (k === 2) {
      out.push(
        `{"channel":"spotCreditState","data":{"user":"${user}","authorized":true,"status":"active","creditUsdAtoms":"5000000000000","positions":[{"asset_id":3,"symbol":"BTC","actual_display":"0.3","actual_qty":"30000000","pending_exposure_display":"0","pending_exposure_qty":"0"},{"asset_id":1,"symbol":"USDC","actual_display":"-${vary ? 12000 + i : 12000}","actual_qty":"-${vary ? 12000 + i : 12000}00000000","pending_exposure_display":"-61","pending_exposure_qty":"-6100000000"}]}}`,
      )
    } else {
      out.push(
        `{"channel":"openOrders","data":{"user":"${user}","orders":[{"coin":"1","side":"B","limitPx":"61000","sz":"0.05","oid":${i},"timestamp":1700000000000,"origSz":"0.05","cloid":"0x000000000000000000000000005eed01"}]}}`,
      )
    }
  }
  return out
}

/** Goal set for the ingest path: at least half the speed of a bare JSON.parse loop. */
const GOAL_RATIO = 0.5
const PAIRS = 9

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** Wall and CPU (user + system, this process) milliseconds of one call. */
function timed(fn: () => void): { wall: number; cpu: number } {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  fn()
  const wall = performance.now() - t0
  const c = process.cpuUsage(c0)
  return { wall, cpu: (c.user + c.system) / 1000 }
}

interface Series {
  bare: { wall: number; cpu: number }[]
  full: { wall: number; cpu: number }[]
  deliveredLastRun: number
}

const round3 = (x: number) => Number(x.toFixed(3))

/** Ratio figures of a series: CPU time is the measure (a loaded machine stretches wall time, not CPU time). */
function figures(s: Series, prefix: string): Record<string, number | string> {
  const cpu = s.bare.map((b, i) => b.cpu / s.full[i]!.cpu)
  const wall = s.bare.map((b, i) => b.wall / s.full[i]!.wall)
  return {
    [`${prefix}ratio_median`]: round3(median(cpu)),
    [`${prefix}ratio_min`]: round3(Math.min(...cpu)),
    [`${prefix}ratio_max`]: round3(Math.max(...cpu)),
    [`${prefix}wall_ratio_median`]: round3(median(wall)),
    [`${prefix}wall_ratio_min`]: round3(Math.min(...wall)),
    [`${prefix}wall_ratio_max`]: round3(Math.max(...wall)),
    [`${prefix}pipeline_cpu_ms_median`]: round3(median(s.full.map((x) => x.cpu))),
    [`${prefix}bare_cpu_ms_median`]: round3(median(s.bare.map((x) => x.cpu))),
  }
}

export default async function streamsBench(): Promise<BenchResult> {
  const N = 20_000
  const mixes = { repeats: frames(N), changing: frames(N, true) }
  let input = mixes.repeats
  let sink = 0
  let delivered = 0
  let pool!: StreamPool
  const fresh = () => {
    // The real clock: coalescing timers are armed as in the app and fire between runs.
    pool = new StreamPool({ wsUrl: 'ws://127.0.0.1:1/ws', clock: realClock })
    pool.subscribe(() => delivered++)
  }
  const bareRun = () =>
    timed(() => {
      for (const f of input) sink += (JSON.parse(f) as { channel: string }).channel.length
    })
  const pipelineRun = () => {
    fresh()
    return timed(() => {
      for (const f of input) pool.ingestText(f)
    })
  }
  // Warm-up of both paths (JIT), not timed.
  for (const mix of [mixes.changing, mixes.repeats]) {
    input = mix
    for (let i = 0; i < 3; i++) {
      bareRun()
      pipelineRun()
    }
  }
  // Interleaved pairs: the machine's load drifts, so each ratio compares runs made side by side.
  const pairs = async (mix: string[]): Promise<Series> => {
    input = mix
    const s: Series = { bare: [], full: [], deliveredLastRun: 0 }
    for (let i = 0; i < PAIRS; i++) {
      s.bare.push(bareRun())
      const before = delivered
      s.full.push(pipelineRun())
      // Ingest is timed; the wait that lets coalescing windows close and deliver is not.
      await new Promise((r) => setTimeout(r, 280))
      s.deliveredLastRun = delivered - before
    }
    return s
  }
  const changing = await pairs(mixes.changing)
  const repeats = await pairs(mixes.repeats)
  const fillsKept = USERS.reduce((n, u) => n + pool.fills(u).length, 0)
  const ratio = median(repeats.bare.map((b, i) => b.cpu / repeats.full[i]!.cpu))
  const changingRatio = median(changing.bare.map((b, i) => b.cpu / changing.full[i]!.cpu))
  const fullFps = N / (median(repeats.full.map((x) => x.cpu)) / 1000)
  const bareFps = N / (median(repeats.bare.map((x) => x.cpu)) / 1000)
  const figure = (name: string, s: Series, what: string) =>
    fromRuns(
      { name, what, unit: 'x bare JSON.parse', goal: GOAL_RATIO, better: 'higher', clock: 'cpu' },
      s.bare.map((b, i) => b.cpu / s.full[i]!.cpu),
    )
  return {
    description: `ingest of ${N} frames (userFills with 3 fills and 10% replays, spotState and spotCreditState repeating identically per account as throttled channels do, openOrders; 20 accounts) through lossless parse, validation, dedupe on (user, tid) and 250 ms coalescing; ratios are bare JSON.parse time over pipeline time, CPU time, ${PAIRS} interleaved pairs; "changing_" = the same mix with every snapshot frame different`,
    figures: [
      figure(
        'ingest_vs_json_parse',
        repeats,
        'stream ingest speed over a bare JSON.parse loop on the service-like frame mix (repeated snapshots skipped), CPU time per interleaved pair',
      ),
      figure(
        'ingest_changing_vs_json_parse',
        changing,
        'the same with every snapshot frame different (nothing to skip), CPU time per interleaved pair',
      ),
    ],
    metrics: {
      frames_per_cpu_s: Math.round(fullFps),
      bare_json_parse_frames_per_cpu_s: Math.round(bareFps),
      ...figures(repeats, ''),
      ...figures(changing, 'changing_'),
      runs: PAIRS,
      deliveries_last_run: repeats.deliveredLastRun,
      fills_kept_last_run: fillsKept,
      sink: sink % 7,
    },
    verdict: `the pipeline runs at ${(ratio * 100).toFixed(0)}% of bare JSON.parse speed on the service-like mix, ${(changingRatio * 100).toFixed(0)}% with every snapshot different; ${Math.round(fullFps)} frames per CPU second`,
  }
}
