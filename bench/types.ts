import type { Figure } from './judge'

/** What a benchmark reports: its judged figures, and the raw measurements behind them. */
export interface BenchResult {
  /** What was measured, on what, in one sentence. */
  description: string
  /** Each figure beside its goal, its ratio and the noise measured; the run fails when one is MISSED. */
  figures: Figure[]
  /** Raw figures, units in the key name (e.g. `p50_ms`, `ops_per_s`). */
  metrics: Record<string, number | string>
  /** A sentence saying what the figures mean. */
  verdict?: string
}

export { percentile } from './judge'
