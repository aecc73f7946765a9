/**
 * Memory: the one-minute version of the soak (bench/soak.ts): the core in a child process
 * against a live sandbox, 20 accounts, overview push on. After a 15 s warm-up, the median RSS of
 * the last quarter against the median of the first quarter after it, with the scatter around a
 * fitted line as noise; and the growth along the fitted line (the full soak, `npm run soak --
 * --minutes 30`, compares the end with 5 min the same way).
 */
import { median } from './judge'
import { soak } from './soak'
import type { BenchResult } from './types'

export default async function run(): Promise<BenchResult> {
  const r = await soak(1, () => {})
  const s = r.samples
  const last = s[s.length - 1]!
  return {
    description: `one-minute memory soak: ${r.comparison}`,
    figures: [r.figure, r.projection, r.heapFigure],
    metrics: {
      samples: s.length,
      rss_first_kb: s[0]!.rss,
      rss_last_kb: last.rss,
      rss_max_kb: Math.max(...s.map((x) => x.rss)),
      heap_first_kb: s[0]!.heap,
      heap_last_kb: last.heap,
      heap_median_kb: median(s.map((x) => x.heap)),
      overview_pushes: r.pushes,
      deposits: r.deposits,
      executed_transactions: r.bot_fills,
      resources_ref_to_end: Object.entries(r.resources)
        .map(([k, v]) => `${k} ${v.ref}->${v.end}`)
        .join(', '),
      resources_grown: r.grown.join(', ') || 'none',
      native_ref_to_end_kb: Object.entries(r.native)
        .map(([k, v]) => `${k} ${v.ref}->${v.end}`)
        .join(', '),
      earn_requested_claimed_failed: `${r.earn.created}/${r.earn.claimed}/${r.earn.failed}`,
      fills_vs_ground_truth: r.fills
        .map(
          (x) =>
            `${x.user.slice(0, 10)}: sandbox ${x.sandbox}, desk ${x.desk}, missing ${x.missing}, extra ${x.extra}, different ${x.different}`,
        )
        .join('; '),
      fills_exact: String(r.fillsExact),
    },
    verdict: `RSS ${r.figure.value}x over the minute (goal <= ${r.figure.goal}x), fitted trend ${r.projection.value}x, collected heap ${r.heapFigure.value}x, with ${r.pushes} overview pushes, ${r.deposits} deposits and ${r.bot_fills} executed transactions on the sandbox`,
  }
}
