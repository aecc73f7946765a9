/**
 * Per-IP token buckets (one second of allowance) and the per-signer sliding one-second
 * window. Both answer how long to wait when refused.
 */

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    private readonly perSec: number,
    private readonly now: () => number,
  ) {}

  /** Takes one token for `key`; returns 0 when allowed, else the milliseconds until a token is due. */
  take(key: string): number {
    const t = this.now()
    const cap = this.perSec
    let b = this.buckets.get(key)
    if (!b) {
      b = { tokens: cap, at: t }
      this.buckets.set(key, b)
    }
    b.tokens = Math.min(cap, b.tokens + ((t - b.at) * this.perSec) / 1000)
    b.at = t
    if (b.tokens >= 1) {
      b.tokens -= 1
      return 0
    }
    return Math.max(1, Math.ceil(((1 - b.tokens) * 1000) / this.perSec))
  }
}

export class SlidingWindow {
  private readonly hits = new Map<string, number[]>()

  constructor(
    private readonly perSec: number,
    private readonly now: () => number,
  ) {}

  take(key: string): number {
    const t = this.now()
    let h = this.hits.get(key)
    if (!h) {
      h = []
      this.hits.set(key, h)
    }
    let drop = 0
    while (drop < h.length && h[drop]! <= t - 1000) drop++
    if (drop > 0) h.splice(0, drop)
    if (h.length >= this.perSec) return Math.max(1, h[0]! + 1000 - t)
    h.push(t)
    return 0
  }
}
