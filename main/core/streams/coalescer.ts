import type { Clock } from './clock'

interface Slot<T> {
  /** merged value waiting for the trailing edge; undefined when nothing waits */
  pending: T | undefined
  /** when the last delivery went out */
  lastSent: number
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
  ) {}

  push(topic: string, value: T): void {
    const s = this.slots.get(topic)
    if (s === undefined) {
      // Leading edge of a topic never seen: deliver now, open a window.
      this.slots.set(topic, { pending: undefined, lastSent: this.clock.now(), timer: undefined })
      this.deliver(topic, value)
      return
    }
    if (s.timer !== undefined) {
      // Inside an open window: merge; the trailing edge delivers.
      s.pending = s.pending === undefined ? value : this.merge(s.pending, value)
      return
    }
    const now = this.clock.now()
    const wait = s.lastSent + this.intervalMs - now
    if (wait <= 0) {
      s.lastSent = now
      this.deliver(topic, value)
      return
    }
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
