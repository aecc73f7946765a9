/**
 * Judging a benchmark figure: its value beside its goal, the ratio of the two, and the noise
 * measured on this run (spread over repeated runs, or the bootstrap spread of a percentile).
 * A figure fails only when it misses its goal by more than that noise, so a loaded machine
 * cannot fail a run on jitter alone and cannot hide a real miss either.
 */

export type Better = 'lower' | 'higher'
export type Verdict = 'met' | 'within noise' | 'MISSED'

/** How the figure was timed: CPU time (user + system) resists load on a shared machine; wall time is what a user waits. */
export type Clock = 'cpu' | 'wall' | 'rss'

export interface Spread {
  n: number
  min: number
  median: number
  max: number
  /** median absolute deviation from the median */
  mad: number
}

export interface Figure {
  name: string
  /** one sentence: what was measured and how */
  what: string
  value: number
  unit: string
  goal: number
  better: Better
  /** value / goal (≤ 1 meets a "lower" goal, ≥ 1 meets a "higher" one) */
  ratio: number
  /** noise in the value's unit; a miss smaller than this is "within noise" */
  noise: number
  noiseMethod: string
  spread: Spread
  clock: Clock
  verdict: Verdict
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))
  return s[i]!
}

export function spreadOf(xs: readonly number[]): Spread {
  const m = median(xs)
  return { n: xs.length, min: Math.min(...xs), median: m, max: Math.max(...xs), mad: median(xs.map((x) => Math.abs(x - m))) }
}

/** Deterministic PRNG (mulberry32) so the bootstrap is repeatable for the same sample. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Standard deviation of the p-th percentile over bootstrap resamples of the sample. */
export function bootstrapSd(xs: readonly number[], p: number, resamples = 400): number {
  if (xs.length < 2) return 0
  const r = rng(xs.length * 7919 + Math.round(p * 13))
  const est: number[] = []
  const buf = new Array<number>(xs.length)
  for (let k = 0; k < resamples; k++) {
    for (let i = 0; i < xs.length; i++) buf[i] = xs[Math.floor(r() * xs.length)]!
    est.push(percentile(buf, p))
  }
  const mean = est.reduce((a, b) => a + b, 0) / est.length
  return Math.sqrt(est.reduce((a, b) => a + (b - mean) ** 2, 0) / (est.length - 1))
}

function verdictOf(value: number, goal: number, noise: number, better: Better): Verdict {
  if (!Number.isFinite(value)) return 'MISSED'
  if (better === 'lower') return value <= goal ? 'met' : value <= goal + noise ? 'within noise' : 'MISSED'
  return value >= goal ? 'met' : value >= goal - noise ? 'within noise' : 'MISSED'
}

const round = (x: number) => (Number.isFinite(x) ? Number(x.toPrecision(4)) : x)

interface FigureOpts {
  name: string
  what: string
  unit: string
  goal: number
  better: Better
  clock: Clock
}

function build(o: FigureOpts, value: number, noise: number, noiseMethod: string, sample: readonly number[]): Figure {
  const s = spreadOf(sample)
  return {
    name: o.name,
    what: o.what,
    value: round(value),
    unit: o.unit,
    goal: o.goal,
    better: o.better,
    ratio: round(value / o.goal),
    noise: round(noise),
    noiseMethod,
    spread: { n: s.n, min: round(s.min), median: round(s.median), max: round(s.max), mad: round(s.mad) },
    clock: o.clock,
    verdict: verdictOf(value, o.goal, noise, o.better),
  }
}

/**
 * A figure measured once per run over ≥ 5 interleaved runs: the value is the median, the noise
 * 1.4826 × MAD (the MAD scaled to a standard deviation for normal noise).
 */
export function fromRuns(o: FigureOpts, runs: readonly number[]): Figure {
  if (runs.length < 5) throw new Error(`${o.name}: ${runs.length} runs; at least 5 are needed to measure the noise`)
  const s = spreadOf(runs)
  return build(o, s.median, 1.4826 * s.mad, `1.4826 x MAD over ${runs.length} interleaved runs`, runs)
}

/** A percentile of one sample (latencies): the noise is the bootstrap standard deviation of that percentile. */
export function fromPercentile(o: FigureOpts, sample: readonly number[], p: number): Figure {
  if (sample.length < 20) throw new Error(`${o.name}: ${sample.length} samples; at least 20 are needed for a percentile`)
  return build(o, percentile(sample, p), bootstrapSd(sample, p), `bootstrap sd of p${p} over ${sample.length} samples`, sample)
}

/** A figure with a given noise (e.g. the spread of a memory series measured alongside). */
export function fromValue(o: FigureOpts, value: number, noise: number, noiseMethod: string, sample: readonly number[]): Figure {
  return build(o, value, noise, noiseMethod, sample)
}

/** One human line per figure, e.g. `journal.record_vs_bare  1.31 x  goal <= 1.25 x  ratio 1.05  noise ±0.08 (…)  met`. */
export function describeFigure(bench: string, f: Figure): string {
  const cmp = f.better === 'lower' ? '<=' : '>='
  const s = f.spread
  return `${f.verdict === 'MISSED' ? 'FAIL' : f.verdict === 'met' ? ' ok ' : 'NOISE'} ${bench}.${f.name}: ${f.value} ${f.unit} (goal ${cmp} ${f.goal} ${f.unit}, ratio ${f.ratio}, noise ±${f.noise} [${f.noiseMethod}], ${f.clock} time, n=${s.n} min/median/max ${s.min}/${s.median}/${s.max}) ${f.verdict}`
}
