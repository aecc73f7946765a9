/**
 * The sandbox oracle feed: marks move continuously around their seeded values, like an
 * upstream price feed that keeps publishing. A seeded random walk, integer-only (usd_atoms,
 * scale 1e8), mean-reverting towards the anchor and clamped to a band around it, rounded to a
 * mark tick, so a session of hours stays near the scenario's prices and every value is exact.
 *
 * Deterministic under a seed: the n-th `step()` yields the same marks for the same seed and
 * anchors. The feed can be frozen (marks keep their values and timestamps, and so go stale
 * after the staleness limit, which the oracle then reports as `StalePrice`).
 */
import type { TradingService } from './types'
import { SandboxError } from '../errors'

export interface MarkWalkOptions {
  /** PRNG seed (uint32); default 1 */
  seed?: number
  /** publish cadence in ms; default 1000; 0 = no timer (step() by hand) */
  intervalMs?: number
  /** largest move per step, in basis points of the anchor (default 5); 0 republishes unchanged values */
  stepBps?: number
  /** the mark never leaves anchor ± this many basis points (default 300) */
  bandBps?: number
  /** each step pulls 1/reversion of the distance back towards the anchor (default 20) */
  reversion?: number
  now?: () => number
}

export interface MarkWalker {
  /** one publication now: every mark moves (unless frozen) and gets a fresh `source_ts_ms` */
  step(): void
  freeze(): void
  unfreeze(): void
  frozen(): boolean
  /** the value each asset's walk reverts to */
  anchors(): { assetId: number; usdAtoms: bigint }[]
  readonly steps: number
  start(): void
  stop(): void
}

/** mulberry32: a tiny 32-bit PRNG, integer state, reproducible everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }
}

/**
 * Mark tick of an asset in usd_atoms: the price tick of the first market it is the base of
 * (10^(8 - price_decimals), markets quote in a USD stable), else 0.0001 USD.
 */
export function markTick(trading: TradingService, assetId: number): bigint {
  const m = trading.listMarkets().find((x) => x.base_asset_id === assetId)
  const pd = m ? Math.min(m.price_decimals, 8) : 4
  return 10n ** BigInt(8 - pd)
}

/** One walk step, integer-only: reversion + bounded noise, clamped to the band, on the tick. */
export function nextMark(
  cur: bigint,
  anchor: bigint,
  tick: bigint,
  r: number,
  o: { stepBps: number; bandBps: number; reversion: number },
): bigint {
  const stepTicks = (anchor * BigInt(o.stepBps)) / 10_000n / tick
  const span = stepTicks < 1n && o.stepBps > 0 ? 1n : stepTicks
  const noise = span === 0n ? 0n : (BigInt(r) % (2n * span + 1n)) - span
  let next = cur + (anchor - cur) / BigInt(o.reversion) + noise * tick
  const band = (anchor * BigInt(o.bandBps)) / 10_000n
  if (next > anchor + band) next = anchor + band
  if (next < anchor - band) next = anchor - band
  next = (next / tick) * tick
  return next < tick ? tick : next
}

export function createMarkWalker(trading: TradingService, opts: MarkWalkOptions = {}): MarkWalker {
  const now = opts.now ?? Date.now
  const rnd = prng(opts.seed ?? 1)
  const cfg = { stepBps: opts.stepBps ?? 5, bandBps: opts.bandBps ?? 300, reversion: opts.reversion ?? 20 }
  if (!Number.isSafeInteger(cfg.stepBps) || cfg.stepBps < 0 || cfg.stepBps > 1000)
    throw new SandboxError('InvalidMarkWalk', 'mark walk: stepBps must be an integer from 0 to 1000')
  if (!Number.isSafeInteger(cfg.bandBps) || cfg.bandBps < 0 || cfg.bandBps > 5000)
    throw new SandboxError('InvalidMarkWalk', 'mark walk: bandBps must be an integer from 0 to 5000')
  if (!Number.isSafeInteger(cfg.reversion) || cfg.reversion < 1)
    throw new SandboxError('InvalidMarkWalk', 'mark walk: reversion must be a positive integer')
  const intervalMs = opts.intervalMs ?? 1000
  /** per asset: the anchor and the last value this feed published (to notice admin overrides) */
  const walks = new Map<number, { anchor: bigint; last: bigint; tick: bigint }>()
  let isFrozen = false
  let steps = 0
  let timer: ReturnType<typeof setInterval> | null = null

  function step(): void {
    if (isFrozen) return
    const t = now()
    for (const m of trading.marks()) {
      let w = walks.get(m.assetId)
      // a mark set from outside (admin `POST mark`) becomes the new anchor
      if (!w || w.last !== m.usdAtoms) {
        w = { anchor: m.usdAtoms, last: m.usdAtoms, tick: markTick(trading, m.assetId) }
        walks.set(m.assetId, w)
      }
      const next = cfg.stepBps === 0 ? m.usdAtoms : nextMark(m.usdAtoms, w.anchor, w.tick, rnd(), cfg)
      trading.setMark(m.assetId, next, t)
      w.last = next
    }
    steps += 1
  }

  return {
    step,
    freeze: () => {
      isFrozen = true
    },
    unfreeze: () => {
      // publishing resumes at once, so the oracle recovers without waiting a cadence
      isFrozen = false
      step()
    },
    frozen: () => isFrozen,
    anchors: () => [...walks].sort((a, b) => a[0] - b[0]).map(([assetId, w]) => ({ assetId, usdAtoms: w.anchor })),
    get steps() {
      return steps
    },
    start() {
      if (timer || intervalMs <= 0) return
      timer = setInterval(step, intervalMs)
      timer.unref?.()
    },
    stop() {
      if (timer) clearInterval(timer)
      timer = null
    },
  }
}
