import type { AccountBook } from './account-book'
import type { InfoBackfill } from './backfill'
import type { Clock } from './clock'
import { subscriptionKey, type Subscription } from './plan'
import type { StreamPoolOptions } from './pool-options'
import { nextRefresh, type RefreshCandidate } from './strict-plan'

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
  /** When the last `overdue` read was sent (they are rationed: see `pollOverdueSpacingMs`). */
  private lastOverdueAt = -Infinity
  /** Per polled channel: its last `overdue` read. */
  private readonly overdueAttempts = new Map<string, number>()
  /** A read of each chain in flight (each reads one channel at a time). */
  /** The channel the overdue chain is reading (false: none). */
  private overdueBusy: string | false = false
  private backgroundBusy = false

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
      this.stop() // one wake-up at a time (two chains of reads finish and look again)
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
   * Beside it, a second chain reads balances past `pollOverdueMs` in the `overdue` lane (see
   * `overdue`): the first chain's read may wait behind a start's backlog of one-off reads.
   */
  private strictPoll(): void {
    this.pollTimer = undefined
    if (!this.host.running()) return
    const now = this.clock.now()
    const minAge = this.opts.pollMinAgeMs ?? 5000
    const polled = this.host.polled().filter((sub) => this.worthReading(sub))
    const cands = polled.map((sub) => {
      const at = this.channelAt(sub)
      const tried = this.pollAttempts.get(subscriptionKey(sub))
      return { sub, rank: this.host.rankOf(sub.user), at: at === null ? (tried ?? null) : tried === undefined ? at : Math.max(at, tried) }
    })
    const late = this.lateBalances(polled, now)
    let wake = Infinity
    if (late.length > 0 && !this.overdueBusy) {
      const rationedUntil = this.lastOverdueAt + (this.opts.pollOverdueSpacingMs ?? 1250)
      if (now < rationedUntil) wake = rationedUntil
      else {
        const pick = nextRefresh(late, now, 0).pick!
        this.lastOverdueAt = now
        this.overdueAttempts.set(subscriptionKey(pick.sub), now)
        this.overdueBusy = subscriptionKey(pick.sub)
        this.host.track(
          this.backfill.refresh([pick.sub], 'overdue').finally(() => {
            this.overdueBusy = false
            this.kick()
          }),
        )
      }
    }
    if (!this.backgroundBusy) {
      // Only the channel the overdue chain is reading now is left out: the overdue chain is
      // rationed to a share of a 1 request/s budget, so at a higher rate (or with every balance
      // never read, at a start) the refresher must still take the late ones in its turn.
      const reading = this.overdueBusy
      const { pick, wakeAt } = nextRefresh(reading === false ? cands : cands.filter((c) => subscriptionKey(c.sub) !== reading), now, minAge)
      if (pick) {
        this.pollAttempts.set(subscriptionKey(pick.sub), now)
        this.backgroundBusy = true
        this.host.track(
          this.backfill.refresh([pick.sub]).finally(() => {
            this.backgroundBusy = false
            this.kick()
          }),
        )
      } else wake = Math.min(wake, wakeAt ?? now + minAge)
    }
    if (Number.isFinite(wake)) this.schedulePoll(Math.max(1, wake - now))
  }

  /** A read finished: look again now (instead of at the pending wake-up). */
  private kick(): void {
    this.stop()
    this.schedulePoll(0)
  }

  /**
   * Polled balances past `pollOverdueMs` (never read included), by their last value, not by the
   * other chain's attempt (its read may be waiting behind the backlog): read one at a time in the
   * `overdue` lane, ahead of the background lane's one-off reads (a start's identities, agent
   * slots and alerts pass, queued first-come-first-served), which at 1 request/s would otherwise
   * hold every polled balance for minutes. The operator's and a write's reads, the reconciliation
   * and the marks still go first (earlier lanes). Rationed (`pollOverdueSpacingMs`), so the
   * background lane keeps a share when every balance is overdue; a failed read is retried after
   * `pollMinAgeMs`, not in a loop.
   */
  private lateBalances(polled: readonly Subscription[], now: number): RefreshCandidate[] {
    const bound = this.opts.pollOverdueMs ?? 45_000
    const retry = this.opts.pollMinAgeMs ?? 5000
    const late: RefreshCandidate[] = []
    for (const sub of polled) {
      // (a credit account's balances are its credit state)
      if (sub.channel !== 'spotState' && sub.channel !== 'spotCreditState') continue
      const at = this.channelAt(sub)
      if (at !== null && now - at < bound) continue
      const tried = this.overdueAttempts.get(subscriptionKey(sub))
      if (tried !== undefined && now - tried < retry) continue
      late.push({ sub, rank: this.host.rankOf(sub.user), at })
    }
    return late
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
