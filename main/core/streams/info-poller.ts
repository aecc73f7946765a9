import type { AccountBook } from './account-book'
import type { InfoBackfill } from './backfill'
import type { Clock } from './clock'
import { subscriptionKey, type Subscription } from './plan'
import type { StreamPoolOptions } from './pool-options'
import { nextRefresh } from './strict-plan'

/** What the poller needs from the pool around it. */
export interface InfoPollerHost {
  running(): boolean
  /** The plan's channels that do not stream (read through /info instead). */
  polled(): readonly Subscription[]
  /** An account's rank (see `StreamPool.rankOf`). */
  rankOf(user: string): number
  track(p: Promise<unknown>): void
}

/**
 * Reads through /info, in turn, the channels the plan could not put on a socket: all of them
 * every `pollIntervalMs`, or in strict mode one at a time, the most due first.
 */
export class InfoPoller {
  private pollTimer: unknown
  /** Per polled subscription key: the last /info attempt, so a failing read is not retried in a loop. */
  private readonly pollAttempts = new Map<string, number>()

  constructor(
    private readonly opts: StreamPoolOptions,
    private readonly clock: Clock,
    private readonly book: AccountBook,
    private readonly backfill: InfoBackfill,
    private readonly host: InfoPollerHost,
  ) {}

  stop(): void {
    if (this.pollTimer !== undefined) this.clock.clearTimeout(this.pollTimer)
    this.pollTimer = undefined
  }

  schedulePoll(delay: number): void {
    if (!this.host.running() || !this.opts.info) return
    if (this.opts.strict) {
      this.pollTimer = this.clock.setTimeout(() => this.strictPoll(), delay)
      return
    }
    this.pollTimer = this.clock.setTimeout(() => {
      this.pollTimer = undefined
      const polled = this.host.polled()
      if (polled.length === 0) return this.schedulePoll(this.opts.pollIntervalMs ?? 5000)
      const p = this.backfill.refresh(polled).finally(() => this.schedulePoll(this.opts.pollIntervalMs ?? 5000))
      this.host.track(p)
    }, delay)
  }

  /**
   * Strict mode's refresher: one polled channel at a time, the most due first (rank, then age;
   * see `nextRefresh`), straight after the previous one; /info's scheduler sets the pace (its
   * background lane yields to the operator and writes). Nothing due: sleep until something is.
   */
  private strictPoll(): void {
    this.pollTimer = undefined
    if (!this.host.running()) return
    const now = this.clock.now()
    const minAge = this.opts.pollMinAgeMs ?? 5000
    const cands = this.host
      .polled()
      .filter((sub) => this.worthReading(sub))
      .map((sub) => {
        const at = this.channelAt(sub)
        const tried = this.pollAttempts.get(subscriptionKey(sub))
        return { sub, rank: this.host.rankOf(sub.user), at: at === null ? (tried ?? null) : tried === undefined ? at : Math.max(at, tried) }
      })
    const { pick, wakeAt } = nextRefresh(cands, now, minAge)
    if (!pick) return this.schedulePoll(wakeAt === null ? minAge : Math.max(1, wakeAt - now))
    this.pollAttempts.set(subscriptionKey(pick.sub), now)
    this.host.track(this.backfill.refresh([pick.sub]).finally(() => this.schedulePoll(0)))
  }

  /**
   * Balances and credit state are read in turn whatever happened. Open orders and fills change
   * only with them (an order placed, cancelled or filled moves locked or held amounts; a fill moves
   * two assets or a position), so they are read again only once the account's state changed since
   * their last read (and once at first: fills since five minutes before the pool started, which
   * alerts rely on, and open orders, which rank an account up):
   * a quiet account costs one read per cycle instead of two, and at 1 request/s every polled
   * account's balances come round twice as often.
   */
  private worthReading(sub: Subscription): boolean {
    if (sub.channel === 'spotState' || sub.channel === 'spotCreditState') return true
    const changed = this.book.stateChangedAt(sub.user)
    const at = this.channelAt(sub)
    if (at === null) return true
    return changed !== undefined && changed >= at
  }

  /** When a channel's value was last current (read or streamed); null: never. */
  private channelAt(sub: Subscription): number | null {
    const st = this.book.state(sub.user)
    switch (sub.channel) {
      case 'spotState':
        return st.balances?.at ?? null
      case 'spotCreditState':
        return st.credit?.at ?? null
      case 'openOrders':
        return st.openOrders?.at ?? null
      case 'userFills':
        return this.backfill.fillsCheckedAtFor(sub.user) ?? null
    }
  }
}
