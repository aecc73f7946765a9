/**
 * Per-key token buckets holding one second of allowance (the shape trading-api §8 describes;
 * the earn pool's own rate is "not shown", so it is a setting).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one token for `key`; false when the bucket is empty. */
  take(key: string): boolean {
    const t = this.now()
    const b = this.buckets.get(key) ?? { tokens: this.perSecond, at: t }
    b.tokens = Math.min(this.perSecond, b.tokens + ((t - b.at) / 1000) * this.perSecond)
    b.at = t
    this.buckets.set(key, b)
    if (b.tokens < 1) return false
    b.tokens -= 1
    return true
  }

  /** Milliseconds until `key` has a token again (0 when it has one now). */
  retryAfterMs(key: string): number {
    const b = this.buckets.get(key)
    if (!b) return 0
    const t = this.now()
    const tokens = Math.min(this.perSecond, b.tokens + ((t - b.at) / 1000) * this.perSecond)
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) / this.perSecond) * 1000)
  }
}
