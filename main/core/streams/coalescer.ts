import type { Clock } from './clock'

/**
 * Turns a burst of updates per topic into at most one delivery per `intervalMs`: the first
 * update of a quiet topic goes out at once, later ones within the window are merged and go out
 * when it closes. Consumers see state, not every frame.
 */
export class Coalescer<T> {
  private readonly pending = new Map<string, T>()
  private readonly lastSent = new Map<string, number>()
  private readonly timers = new Map<string, unknown>()

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly deliver: (topic: string, value: T) => void,
    private readonly merge: (prev: T, next: T) => T = (_p, n) => n,
  ) {}

  push(topic: string, value: T): void {
    const prev = this.pending.get(topic)
    this.pending.set(topic, prev === undefined ? value : this.merge(prev, value))
    if (this.timers.has(topic)) return
    const last = this.lastSent.get(topic)
    const now = this.clock.now()
    const wait = last === undefined ? 0 : last + this.intervalMs - now
    if (wait <= 0) return this.flush(topic)
    this.timers.set(
      topic,
      this.clock.setTimeout(() => {
        this.timers.delete(topic)
        this.flush(topic)
      }, wait),
    )
  }

  private flush(topic: string): void {
    const v = this.pending.get(topic)
    if (v === undefined) return
    this.pending.delete(topic)
    this.lastSent.set(topic, this.clock.now())
    this.deliver(topic, v)
  }

  /** Delivers everything pending now (shutdown, tests). */
  flushAll(): void {
    for (const [topic, h] of this.timers) {
      this.clock.clearTimeout(h)
      this.timers.delete(topic)
    }
    for (const topic of [...this.pending.keys()]) this.flush(topic)
  }

  stop(): void {
    for (const h of this.timers.values()) this.clock.clearTimeout(h)
    this.timers.clear()
    this.pending.clear()
  }
}
