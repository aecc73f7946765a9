/**
 * Memory: the one-minute version of the soak (bench/soak.ts): the core in a child process
 * against a live sandbox, 20 accounts, overview push on; RSS of the second half against the end
 * of the first quarter (the full soak, `npm run soak -- --minutes 30`, compares the end with 5 min).
 */
import { median } from './judge'
import { soak } from './soak'
import type { BenchResult } from './types'

export default async function run(): Promise<BenchResult> {
  const r = await soak(1, () => {})
  const s = r.samples
  const half = s.filter((x) => x.t >= 30_000)
  const quarter = s.reduce((b, x) => (Math.abs(x.t - 15_000) < Math.abs(b.t - 15_000) ? x : b), s[0]!)
  return {
    description: `one-minute memory soak: ${r.comparison}`,
    figures: [r.figure],
    metrics: {
      samples: s.length,
      rss_first_quarter_kb: quarter.rss,
      rss_second_half_median_kb: median(half.map((x) => x.rss)),
      rss_last_kb: s[s.length - 1]!.rss,
      heap_first_quarter_kb: quarter.heap,
      heap_second_half_median_kb: median(half.map((x) => x.heap)),
      overview_pushes: r.pushes,
      deposits: r.deposits,
      executed_transactions: r.bot_fills,
    },
    verdict: `RSS ${r.figure.value}x over the minute (goal <= ${r.figure.goal}x) with ${r.pushes} overview pushes, ${r.deposits} deposits and ${r.bot_fills} executed transactions on the sandbox`,
  }
}
