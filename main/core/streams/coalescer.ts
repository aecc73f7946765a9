import type { Clock } from './clock'

interface Slot<T> {
  /** merged value waiting for the trailing edge; undefined when nothing waits */
  pending: T | undefined
  /** when the last delivery went out */
  lastSent: number
  /** times of the deliveries within the last window (at most `burst`) */
  sent: number[]
  /** trailing-edge timer while a window is open */
  timer: unknown
}

/**
 * Per-topic leading/trailing-edge throttle. The first update of a quiet topic is delivered at
 * once (a balance change is not held back by the window); updates arriving while the window
 * since that delivery is open are merged and delivered once when it closes. So a change
 * waits at most `intervalMs`, a quiet topic's change waits not at all, and a burst costs one
 * delivery per window. Consumers see state, not every frame.
 */
export class Coalescer<T> {
  private readonly slots = new Map<string, Slot<T>>()

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly deliver: (topic: string, value: T) => void,
    private readonly merge: (prev: T, next: T) => T = (_p, n) => n,
    /**
     * Deliveries let through at once per window: with more than one, spaced changes (a
     * deposit, then another a tenth of a second later) are not held back; only a burst beyond
     * this many within the window waits for its trailing edge.
     */
    private readonly burst = 1,
  ) {}

  push(topic: string, value: T): void {
    const s = this.slots.get(topic)
    if (s === undefined) {
      // Leading edge of a topic never seen: deliver now, open a window.
      const now = this.clock.now()
      this.slots.set(topic, { pending: undefined, lastSent: now, sent: [now], timer: undefined })
      this.deliver(topic, value)
      return
    }
    if (s.timer !== undefined) {
      // Inside an open window: merge; the trailing edge delivers.
      s.pending = s.pending === undefined ? value : this.merge(s.pending, value)
      return
    }
    const now = this.clock.now()
    while (s.sent.length > 0 && s.sent[0]! + this.intervalMs <= now) s.sent.shift()
    if (s.sent.length < this.burst) {
      s.lastSent = now
      s.sent.push(now)
      this.deliver(topic, value)
      return
    }
    const wait = s.sent[0]! + this.intervalMs - now
    s.pending = value
    const slot = s
    s.timer = this.clock.setTimeout(() => this.trailing(topic, slot), wait)
  }

  private trailing(topic: string, s: Slot<T>): void {
    s.timer = undefined
    const v = s.pending
    if (v === undefined) return
    s.pending = undefined
    s.lastSent = this.clock.now()
    s.sent.push(s.lastSent)
    if (s.sent.length > this.burst) s.sent.shift()
    this.deliver(topic, v)
  }

  /** Whether a value waits for its trailing edge (tests, status). */
  hasPending(topic: string): boolean {
    return this.slots.get(topic)?.pending !== undefined
  }

  /** Delivers everything pending now (shutdown, tests). */
  flushAll(): void {
    for (const [topic, s] of this.slots) {
      if (s.timer !== undefined) this.clock.clearTimeout(s.timer)
      this.trailing(topic, s)
    }
  }

  stop(): void {
    for (const s of this.slots.values()) if (s.timer !== undefined) this.clock.clearTimeout(s.timer)
    this.slots.clear()
  }
}
