import type { Clock } from '../clock'

/** A manual clock for tests: `advance(ms)` runs due timers in time order. */
export class ManualClock implements Clock {
  private t: number
  private seq = 0
  private timers = new Map<number, { at: number; fn: () => void }>()

  constructor(start = 0) {
    this.t = start
  }

  now(): number {
    return this.t
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn })
    return id
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number)
  }

  pending(): number {
    return this.timers.size
  }

  advance(ms: number): void {
    const end = this.t + ms
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e
      if (!next) break
      this.timers.delete(next[0])
      this.t = next[1].at
      next[1].fn()
    }
    this.t = end
  }
}
