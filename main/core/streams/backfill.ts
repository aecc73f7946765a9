import { isCreditLine } from '../exchange/info/types/spot-credit-account'
import type { AccountBook } from './account-book'
import type { Clock } from './clock'
import { fromInfoFill } from './fills'
import type { Subscription } from './plan'
import type { StreamPoolOptions } from './pool-options'

/** What the gap recovery needs from the pool around it. */
export interface BackfillHost {
  running(): boolean
  /** When the pool started: fills before it (minus five minutes) are not looked for. */
  startedAt(): number
  /** Users whose fills channel is on a socket now. */
  streamedFillUsers(): Set<string>
  /** Keeps a background read in the pool's in-flight set (its failure becomes the last problem). */
  track(p: Promise<unknown>): void
  log(line: string): void
}

/**
 * What the pool reads through /info to make up for the sockets: the fills a dropped frame, a silence,
 * a reconnect or a rotation may have hidden (by time from the last point /info confirmed,
 * deduplicated on tid), the minute sweep, the early check when a state change came without
 * its fill, and one-off refreshes of the channels that do not stream.
 */
export class InfoBackfill {
  /** Per user: every fill up to this time (ms, inclusive bound) is confirmed through /info. */
  private readonly verifiedThrough = new Map<string, number>()
  /** Per user: when /info last confirmed its fills (the polled fills channel's age). */
  private readonly fillsCheckedAt = new Map<string, number>()
  /**
   * Per user: the pending gap check, when the last one ran, whether its /info read is still
   * queued or in flight, and the reason of a gap suspected meanwhile (checked again once it ends).
   */
  private readonly gaps = new Map<string, { timer: unknown; lastCheckAt: number; reading: boolean; again: string | null }>()
  /**
   * Per user: the latest silence, reconnect, lost frame or rotation whose fills are not read yet
   * (a mark number), so a failed or skipped read is made up by the sweep even for an account
   * whose state never changes again. A read sent after the mark clears it.
   */
  private readonly fillsDue = new Map<string, number>()
  private marks = 0
  private sweepTimer: unknown
  /** Fills backfills started because a gap was suspected (not counting reconnects and the sweep). */
  gapBackfills = 0

  constructor(
    private readonly opts: StreamPoolOptions,
    private readonly clock: Clock,
    private readonly book: AccountBook,
    private readonly host: BackfillHost,
  ) {}

  /** When /info last confirmed `user`'s fills; undefined: never. */
  fillsCheckedAtFor(user: string): number | undefined {
    return this.fillsCheckedAt.get(user)
  }

  /** `users`' fills must be read through /info by a read sent from now on (see `fillsDue`). */
  markFillsDue(users: Iterable<string>): void {
    for (const u of users) this.fillsDue.set(u.toLowerCase(), ++this.marks)
  }

  stop(): void {
    for (const g of this.gaps.values()) {
      if (g.timer !== undefined) this.clock.clearTimeout(g.timer)
      g.timer = undefined
    }
    if (this.sweepTimer !== undefined) this.clock.clearTimeout(this.sweepTimer)
    this.sweepTimer = undefined
  }

  /**
   * Fetches through /info every fill since the last confirmed point (or since the pool
   * started) for `users` (default: every account) and adds the missing ones, deduplicated on
   * (user, tid). Returns how many were new.
   */
  async reconcileFills(users?: readonly string[], lane: 'reconcile' | 'overdue' | 'background' = 'reconcile'): Promise<number> {
    const info = this.opts.info
    if (!info) return 0
    let added = 0
    for (const u of users ?? this.book.users()) {
      const user = u.toLowerCase()
      // From the last point /info confirmed, not the newest frame seen: a dropped frame can hide
      // behind a later one that did arrive.
      const since = this.verifiedThrough.get(user) ?? this.host.startedAt() - 5 * 60_000
      const issuedAt = this.clock.now()
      const marksBefore = this.marks
      const fills = await info.allFillsSince(user, Math.max(0, since), { lane })
      this.fillsCheckedAt.set(user, issuedAt)
      // A mark made while this read was out may concern fills it did not see: it stays.
      if ((this.fillsDue.get(user) ?? Infinity) <= marksBefore) this.fillsDue.delete(user)
      added += this.book.addFillsAt(
        user,
        fills.map((f) => fromInfoFill(user, f)),
        this.clock.now(),
      )
      const newest = fills.reduce((m, f) => Math.max(m, f.time), since)
      this.verifiedThrough.set(user, newest)
    }
    return added
  }

  /** One refresh of the given subscriptions through /info (background lane). */
  async refresh(subs: readonly Subscription[], lane: 'reconcile' | 'overdue' | 'background' = 'background'): Promise<void> {
    const info = this.opts.info
    if (!info) return
    for (const s of subs) {
      const at = () => this.clock.now()
      switch (s.channel) {
        case 'spotState': {
          const rows = await info.userBalances({ user: s.user }, { lane })
          this.book.setBalances(
            s.user,
            rows.map((r) => ({ assetId: r.asset_id, coin: r.symbol ?? null, total: null, locked: r.locked, available: r.available })),
            at(),
          )
          break
        }
        case 'spotCreditState': {
          const acct = await info.spotCreditAccount({ user: s.user }, { lane })
          const positions = isCreditLine(acct) ? await info.spotCreditPositions({ user: s.user }, { lane }) : []
          this.book.setCredit(
            s.user,
            { authorized: isCreditLine(acct), status: acct.status ?? null, creditUsdAtoms: acct.credit_usd_atoms ?? null, positions },
            at(),
          )
          break
        }
        case 'openOrders': {
          const issuedAt = at()
          const r = await info.openOrders({ user: s.user, market_id: -1 }, { lane })
          this.book.noteOpenOrders(s.user, r, at(), issuedAt)
          break
        }
        case 'userFills':
          await this.reconcileFills([s.user], lane)
          break
      }
    }
  }

  /** After a reconnect: fills since the last seen one, and open orders, through /info. */
  async afterReconnect(subs: readonly Subscription[]): Promise<void> {
    const fillUsers = subs.filter((s) => s.channel === 'userFills').map((s) => s.user)
    this.markFillsDue(fillUsers)
    if (fillUsers.length > 0) await this.reconcileFills(fillUsers)
    await this.refresh(
      subs.filter((s) => s.channel === 'openOrders'),
      'reconcile',
    )
  }

  /**
   * Rotation: an account whose fills channel moved in or out of the socket is read through
   * /info by time from its last confirmed point, deduplicated on tid (the fills book): a fill
   * between its last poll and the subscription's snapshot, or after the unsubscribe, is never
   * lost. Returns how many accounts moved.
   */
  afterRotation(fillsBefore: ReadonlySet<string>, fillsAfter: ReadonlySet<string>): number {
    const moved = [...fillsBefore].filter((u) => !fillsAfter.has(u)).concat([...fillsAfter].filter((u) => !fillsBefore.has(u)))
    this.markFillsDue(moved)
    if (moved.length > 0 && this.opts.info) this.host.track(this.reconcileFills(moved))
    return moved.length
  }

  /**
   * The minute sweep: fills through /info for the accounts whose state changed since their fills
   * were last confirmed there, or that a silence, a reconnect, a lost frame or a rotation marked
   * and no read has cleared since (see `fillsDue`), in the background lane. A fill changes
   * balances, credit positions or an order, so an account quiet since has no fill to recover
   * unless the socket lost that change's frames too (a silence drops every frame, snapshots
   * included): that is what the marks are for. The sweep costs nothing for a treasury's many quiet
   * accounts. Reading every account each minute (200 reads at 1 request/s, in the reconcile lane
   * ahead of marks and refreshes) kept the budget busy for good at 200 accounts. The API has no
   * read of several users' fills to batch them into.
   */
  scheduleSweep(): void {
    const every = this.opts.reconcileIntervalMs ?? 60_000
    if (!this.host.running() || !this.opts.info || every <= 0) return
    this.sweepTimer = this.clock.setTimeout(() => {
      this.sweepTimer = undefined
      // Strict mode: polled accounts' fills are read by the refresher; the sweep covers the streamed
      // ones, and any marked (the refresher reads fills only after a state change).
      const candidates = new Set([...(this.opts.strict ? this.host.streamedFillUsers() : this.book.users()), ...this.fillsDue.keys()])
      const p = this.reconcileFills(this.sweepDue([...candidates]), 'background').finally(() => this.scheduleSweep())
      this.host.track(p)
    }, every)
  }

  /** The accounts of `users` whose state changed after their fills were last confirmed through /info, or that are marked. */
  sweepDue(users: readonly string[]): string[] {
    return users.filter((u) => {
      if (this.fillsDue.has(u)) return true
      const changed = this.book.stateChangedAt(u)
      return changed !== undefined && changed >= (this.fillsCheckedAt.get(u) ?? -Infinity)
    })
  }

  /**
   * A snapshot frame changed the balances (or positions, or an order's remaining size) but no
   * new fill arrived since the previous one: the fill's frame may have been dropped (the
   * service drops event frames without a disconnect when it falls behind). Give the frame a
   * short grace to arrive late, then read the fills through /info at once instead of waiting
   * for the minute sweep. One check per user at a time, at most one per `gapMinIntervalMs`.
   */
  suspectGap(user: string, reason: string): void {
    let g = this.gaps.get(user)
    if (!this.host.running() || !this.opts.info || (g !== undefined && g.timer !== undefined)) return
    if (!this.host.streamedFillUsers().has(user)) return // polled users are read through /info anyway
    if (g === undefined) this.gaps.set(user, (g = { timer: undefined, lastCheckAt: -Infinity, reading: false, again: null }))
    // One read per user at a time: when /info is busy (its budget is shared by every account) a
    // read waits in the scheduler's queue, and a check started per suspicion would queue one more
    // read for each state change while it waits, without bound. A suspicion meanwhile is checked
    // once the read ends (it may have left before that state change).
    if (g.reading) {
      g.again = reason
      return
    }
    const gap = g
    const seq = this.book.fillSeq(user)
    const now = this.clock.now()
    const grace = this.opts.gapGraceMs ?? 500
    const wait = Math.max(grace, gap.lastCheckAt + (this.opts.gapMinIntervalMs ?? 2000) - now)
    gap.timer = this.clock.setTimeout(() => {
      gap.timer = undefined
      if (!this.host.running() || this.book.fillSeq(user) !== seq) return // the fill came after all
      this.markFillsDue([user])
      gap.lastCheckAt = this.clock.now()
      gap.reading = true
      this.gapBackfills++
      const p = this.reconcileFills([user])
        .then((n) => {
          if (n > 0) this.host.log(`${n} fill(s) recovered through /info after ${reason} for ${user}`)
        })
        .finally(() => {
          gap.reading = false
          const again = gap.again
          gap.again = null
          if (again !== null) this.suspectGap(user, again)
        })
      this.host.track(p)
    }, wait)
  }
}
