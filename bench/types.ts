/** What a benchmark reports: its measurements, and the comparison it makes (e.g. against a bare baseline). */
export interface BenchResult {
  /** What was measured, on what, in one sentence. */
  description: string
  /** Raw figures, units in the key name (e.g. `p50_ms`, `ops_per_s`). */
  metrics: Record<string, number | string>
  /** The comparison: baseline figures and ratios, with a sentence saying what they mean. */
  comparison?: { against: string; ratios: Record<string, number>; verdict: string }
}

/** Percentile of a sorted-or-not sample, in the sample's unit. */
export function percentile(sample: number[], p: number): number {
  if (sample.length === 0) return NaN
  const s = [...sample].sort((a, b) => a - b)
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))
  return s[i]!
}
