/**
 * Push cadence floor for one subscription of a throttled channel (trading-api §6): a touch
 * sends at once if the floor has passed since the last push, otherwise one push is scheduled
 * for when it has. Touches in between are conflated; the payload is built at send time.
 */
export class Throttle {
  private lastSentAt = Number.NEGATIVE_INFINITY
  private timer: ReturnType<typeof setTimeout> | null = null

  constructor(
    private readonly floorMs: number,
    private readonly send: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Marks the topic as touched. */
  touch(): void {
    if (this.timer) return
    const wait = this.lastSentAt + this.floorMs - this.now()
    if (wait <= 0) this.fire()
    else this.timer = setTimeout(() => this.fire(), wait)
  }

  /** Records a push made outside the throttle (the snapshot on subscribe). */
  markSent(): void {
    this.lastSentAt = this.now()
  }

  private fire(): void {
    this.timer = null
    this.lastSentAt = this.now()
    this.send()
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }
}

/** Floors per throttled channel, as specified; the same in every environment. */
export const PUSH_FLOORS_MS = { l2Book: 500, openOrders: 500, allMids: 5000, spotState: 200, spotCreditState: 200 } as const
export type ThrottledChannel = keyof typeof PUSH_FLOORS_MS
