import type { AccountDetailView, Address, FillView, OpenOrderView } from '../../../contract/types'
import type { Lane } from '../../exchange/scheduler'
import type { EventHub } from '../../ipc/events'
import type { Submission } from '../../journal'
import { formatAtoms, parseSignedDecimal } from '../../money/decimal'
import type { NetworkSession } from '../../session'
import { fromInfoFill, type StreamFill } from '../../streams/fills'
import type { LiveOrder } from '../../streams/live-state'
import type { Subscription } from '../../streams/plan'
import type { AccountDirectory, AccountRef } from '../accounts'
import type { CreditLive } from '../credit'
import type { ScreenSource } from '../screen'
import { LeadingBatch } from './leading-batch'
import { portfolioFor, type PortfolioServiceDeps } from './portfolio-for-session'
import { streamTargetsOf } from './stream-targets'

export interface LiveAccountsDeps extends PortfolioServiceDeps {
  accounts: AccountDirectory
  events: EventHub
  now: () => number
  /** Credit pages on screen stream first too (strict limits). */
  credit?: CreditLive
  /** Asks for one full overview push soon (coalesced by the caller). */
  overviewSoon: () => void
  /** After a write: how long the stream gets to bring the new state before /info is asked (default 1.5 s). */
  streamGraceMs?: number
  /** How often pages on screen are pushed again so their ages stay current (default 5 s). */
  heartbeatMs?: number
}

/**
 * An account read by the operator without a lease (the CLI, a test), or touched by a write, is
 * pushed when its stream moves for this long; it never gets the screen's stream priority.
 */
const FOLLOW_MS = 60_000
/** Journal states that end a write: the accounts it touched have their final state to show. */
const FINAL = new Set(['accepted', 'rejected', 'reconciled', 'failed', 'unresolved'])
/** How far back an account page lists fills. */
const FILLS_WINDOW_MS = 24 * 3600_000
const ADDRESS_IN_TEXT = /0x[0-9a-fA-F]{40}(?![0-9a-fA-F])/g

/**
 * The live state of the accounts on screen, for one session at a time: account pages are built
 * from the stream pool's state (balances, credit positions, open orders, fills) with /info only
 * for what the streams lack (a 24 h fill history, read once per account; the credit whitelist),
 * and pushed (`state.account`) whenever that state moves. Writes are followed through the
 * journal: every change of a submission pushes its accounts at once, and when it ends, each
 * touched account gets its final state from the stream or, when no frame came within a short
 * grace, from one /info read of the missing channels (coalesced, in the reconcile lane). Earn,
 * agent slots and credit health follow their own writes in their features.
 */
export class LiveAccounts {
  private session: NetworkSession | null = null
  private readonly offs: (() => void)[] = []
  /** accounts read by the operator or touched by a write, and when (pushed on every change for `FOLLOW_MS`) */
  private readonly watched = new Map<string, number>()
  private readonly fillsRead = new Map<string, Promise<void>>()
  private readonly fillsDone = new Set<string>()
  /** Account pages: pushed at once after a quiet spell; a burst within 50 ms makes one more push per account. */
  private readonly pushes = new LeadingBatch<string>(50, (users) => {
    const s = this.session
    if (!s) return
    for (const u of users) void this.pushAccount(s, u)
  })
  private closed = false
  /** What screens hold leases on (account pages pushed and streamed first; overview rows streamed next). */
  private screen: ScreenSource | null = null
  /** Account pages leased at the last change (to stop following those released). */
  private leased = new Set<string>()
  private heartbeatTimer: ReturnType<typeof setTimeout> | null = null

  constructor(private readonly d: LiveAccountsDeps) {
    // A credit page opened or closed changes which accounts stream first.
    if (d.credit) this.offs.push(d.credit.onScreenChange(() => this.prioritise()))
  }

  /** Follows a new session (the previous one's state is dropped with it). */
  attach(s: NetworkSession): void {
    this.detach()
    this.session = s
    this.watched.clear()
    this.fillsRead.clear()
    this.fillsDone.clear()
    const pool = s.pool
    if (pool) {
      this.sessionOffs.push(
        pool.subscribe((u) => {
          if (this.followed(u.user)) this.pushSoon([u.user])
        }),
      )
      // A new session starts with what screens hold now.
      this.prioritise()
    }
    this.sessionOffs.push(
      s.journal.onChange((sub) => {
        if (sub.network === s.name) this.onWrite(s, sub)
      }),
    )
  }

  /**
   * Follows the screens' leases: a leased account page is pushed on every change and every few
   * seconds, and streams first (strict priority `screen`, with the leased credit pages); the
   * overview's visible rows stream next (`overview`). A released page stops both.
   */
  followScreen(screen: ScreenSource): void {
    this.screen = screen
    this.offs.push(screen.onChange(() => this.screenChanged()))
    this.screenChanged()
  }

  private screenChanged(): void {
    if (this.closed || !this.screen) return
    const now = new Set(this.screen.accounts())
    for (const u of this.leased) if (!now.has(u)) this.watched.delete(u)
    const added = [...now].filter((u) => !this.leased.has(u))
    this.leased = now
    this.prioritise()
    if (added.length > 0) this.pushSoon(added)
    if (now.size > 0) this.heartbeat()
  }

  /** Pushed when its stream moves: leased, or read or written lately. */
  private followed(user: string): boolean {
    if (this.leased.has(user)) return true
    const at = this.watched.get(user)
    if (at === undefined) return false
    if (this.d.now() - at <= FOLLOW_MS) return true
    this.watched.delete(user)
    return false
  }

  close(): void {
    this.closed = true
    this.detach()
    for (const off of this.offs) off()
    this.pushes.close()
    for (const t of [this.heartbeatTimer, this.settleTimer]) if (t) clearTimeout(t)
  }

  private readonly sessionOffs: (() => void)[] = []
  private detach(): void {
    for (const off of this.sessionOffs.splice(0)) off()
  }

  /**
   * An account page from live state. Balances and credit come from the streams when they have
   * them (the portfolio service falls back to /info otherwise); open orders from the stream's
   * snapshot; fills from the pool's book, which the stream's snapshot of the last 100 fills
   * fills at once and one /info read (once per account and session) extends to 24 hours.
   */
  async detail(s: NetworkSession, ref: AccountRef, lane: Lane): Promise<AccountDetailView> {
    const user = ref.address.toLowerCase()
    // A read pushed by this class itself does not extend how long the account is followed.
    if (lane !== 'background') this.watched.set(user, this.d.now())
    const portfolio = portfolioFor(s, this.d)
    const { row, credit } = await portfolio.row(ref, lane)
    // Whichever read learns first that an account's kind or existence changed (an activation)
    // re-plans the streams; the overview's later read then sees nothing new.
    if (this.d.accounts.remember(ref.address, row.account)) s.streamAccounts(streamTargetsOf(this.d.accounts))
    const now = this.d.now()
    const balances =
      row.account.kind === 'credit'
        ? { rows: [], fetchedAt: row.fetchedAt }
        : row.account.status === 'none'
          ? { rows: [], fetchedAt: now }
          : await portfolio.balances(user, lane)
    const live = s.pool?.state(user)
    let openOrders: OpenOrderView[]
    let ordersAt: number | null
    if (live?.openOrders && s.pool!.usable(user, 'openOrders', live.openOrders.at)) {
      openOrders = live.openOrders.value.map(orderView)
      ordersAt = s.pool!.isLive(user, 'openOrders', live.openOrders.at) ? now : live.openOrders.at
    } else {
      const issuedAt = now
      const oo = await s.info.openOrders({ user, market_id: -1 }, { lane })
      // What the read proved becomes the live state (every screen shows the same orders).
      s.pool?.noteOpenOrders(user, oo, this.d.now(), issuedAt)
      openOrders = oo.orders.map((o) => ({
        marketId: String(o.market_id ?? ''),
        oid: String(o.oid),
        cloid: o.cloid ?? null,
        side: o.side === 'ask' || o.side === 'A' ? 'ask' : 'bid',
        price: o.price ?? '',
        originalQty: o.original_qty,
        remainingQty: o.remaining_qty,
        filledQty: o.filled_qty,
        timeMs: o.timestamp_ms ?? null,
      }))
      ordersAt = now
    }
    let fills: FillView[]
    let fillsAt: number | null
    if (s.pool) {
      // Never waits: the stream's snapshot has the latest 100 fills; the 24 h read lands later
      // and the page is pushed again (its age says "not read yet" until then).
      this.readFillsOnce(s, user)
      fills = fillViews(s.pool.fills(user), now)
      fillsAt = this.fillsDone.has(user) ? now : null
    } else {
      const r = await s.info.userFillsByTime({ user, start_time_ms: Math.max(0, now - FILLS_WINDOW_MS) }, { lane })
      fills = fillViews(
        r.fills.map((f) => fromInfoFill(user, f)),
        now,
      )
      fillsAt = now
    }
    // The credit row is dated by its source: now while its channel streams (a quiet account sends
    // no frame while nothing moves), its last frame while merely recent, the read otherwise.
    const creditAt = credit ? row.fetchedAt : null
    return {
      account: row.account,
      balances: balances.rows,
      credit,
      openOrders,
      fills,
      fetchedAt: balances.fetchedAt ?? row.fetchedAt,
      ages: { balances: balances.fetchedAt ?? null, credit: creditAt, openOrders: ordersAt, fills: fillsAt },
      source: row.source === 'live' ? 'live' : 'info',
    }
  }

  /**
   * One /info read of 24 h of fills into the pool's book (deduplicated on tid); pushes the page
   * after. Callers do not wait on it: while /info is busy the read may queue for minutes, and a
   * handler added per page push would pile up on the pending read (one per push, without bound).
   */
  private readFillsOnce(s: NetworkSession, user: string): void {
    if (this.fillsRead.has(user)) return
    const p = s.info.userFillsByTime({ user, start_time_ms: Math.max(0, this.d.now() - FILLS_WINDOW_MS) }, { lane: 'background' }).then(
      (r) => {
        s.pool?.addFills(
          user,
          r.fills.map((f) => fromInfoFill(user, f)),
        )
        this.fillsDone.add(user)
        this.pushSoon([user])
      },
      () => {
        // Read again on the next page push; the age says "not read yet" meanwhile.
        this.fillsRead.delete(user)
      },
    )
    this.fillsRead.set(user, p)
  }

  /**
   * Quiet accounts push nothing, yet their streamed state is current: leased pages are pushed
   * again every few seconds so their ages read "now", not the time of the last change (from
   * live state; no account request). Stops when no page is leased.
   */
  private heartbeat(): void {
    if (this.heartbeatTimer || this.closed) return
    this.heartbeatTimer = setTimeout(() => {
      this.heartbeatTimer = null
      if (this.leased.size === 0) return
      this.pushSoon([...this.leased])
      this.heartbeat()
    }, this.d.heartbeatMs ?? 5000)
  }

  /** Strict limits: leased account and credit pages stream first, then the overview's visible rows. */
  private prioritise(): void {
    const pool = this.session?.pool
    if (!pool) return
    pool.setPriority('screen', [...new Set([...this.leased, ...(this.d.credit?.onScreen() ?? [])])])
    pool.setPriority('overview', this.screen?.overview() ?? [])
  }

  /** Pushes the pages of `users` now, or once a burst is over (one push per account). */
  pushSoon(users: readonly string[]): void {
    if (this.closed) return
    this.pushes.add(users.map((u) => u.toLowerCase()))
  }

  private async pushAccount(s: NetworkSession, user: string): Promise<void> {
    if (this.closed || s !== this.session) return
    const ref = this.d.accounts.ref(user) ?? { address: user as Address, label: '', group: '', hasKey: false }
    try {
      const view = await this.detail(s, ref, 'background')
      if (s !== this.session || this.closed) return
      this.d.events.emit('state.account', view)
    } catch {
      // The next change pushes again; the page keeps its last values with their age.
    }
  }

  /** Accounts a write touches: its own, and any of the operator's accounts named in its body (a transfer's recipient, a settle's cash account). */
  affected(sub: Submission): string[] {
    const own = new Set(this.d.accounts.refs().map((r) => r.address.toLowerCase()))
    const out = new Set<string>([sub.account.toLowerCase()])
    for (const m of sub.body.matchAll(ADDRESS_IN_TEXT)) {
      const a = m[0].toLowerCase()
      if (own.has(a)) out.add(a)
    }
    return [...out]
  }

  private onWrite(s: NetworkSession, sub: Submission): void {
    if (this.closed) return
    const users = this.affected(sub)
    for (const u of users) this.watched.set(u, this.d.now())
    this.pushSoon(users)
    this.d.overviewSoon()
    if (!FINAL.has(sub.state) || sub.channel !== 'trade') return
    // An activation creates an account that was not streamed: its status is read again now,
    // and the overview that follows re-plans the streams to include it.
    if (sub.actionType === 'activateFor') {
      const portfolio = portfolioFor(s, this.d)
      void Promise.all(users.map((u) => portfolio.identity(u, 'reconcile', true).catch(() => null))).then(() => this.d.overviewSoon())
    }
    // The write ended: give the stream a moment, then read through /info what it did not bring.
    this.settleLater(s, users, this.d.now())
  }

  /** user -> end of its earliest write not yet settled */
  private readonly settleDue = new Map<string, number>()
  private settleTimer: ReturnType<typeof setTimeout> | null = null

  /**
   * Follow-up reads after writes are coalesced: one pass a grace period after the first write
   * of a burst settles every account the burst touched (ten orders make one pass, not ten), each
   * from its earliest write, so the reads never pile up in front of the next write.
   */
  private settleLater(s: NetworkSession, users: readonly string[], endedAt: number): void {
    for (const u of users) if (!this.settleDue.has(u)) this.settleDue.set(u, endedAt)
    if (this.settleTimer || this.closed) return
    this.settleTimer = setTimeout(() => {
      this.settleTimer = null
      const due = new Map(this.settleDue)
      this.settleDue.clear()
      void this.settle(s, due)
    }, this.d.streamGraceMs ?? 1500)
  }

  /** Reads through /info the channels of `users` that have not moved since `since`, then pushes them. */
  private async settle(s: NetworkSession, due: ReadonlyMap<string, number>): Promise<void> {
    if (this.closed || s !== this.session) return
    const pool = s.pool
    const users = [...due.keys()]
    if (pool) {
      const subs: Subscription[] = []
      for (const [user, since] of due) {
        const st = pool.state(user)
        const credit = st.credit?.value.authorized === true
        if (credit && (st.credit?.at ?? 0) < since) subs.push({ channel: 'spotCreditState', user })
        if (!credit && (st.balances?.at ?? 0) < since) subs.push({ channel: 'spotState', user })
        if ((st.openOrders?.at ?? 0) < since) subs.push({ channel: 'openOrders', user })
      }
      // The reconcile lane: ahead of background refreshes, behind what the operator is waiting on.
      await pool.refresh(subs, 'reconcile').catch(() => {})
      await pool.reconcileFills(users).catch(() => {})
    }
    this.pushSoon(users)
    this.d.overviewSoon()
  }
}

function orderView(o: LiveOrder): OpenOrderView {
  return {
    marketId: o.marketId ?? '',
    oid: String(o.oid),
    cloid: o.cloid,
    side: o.side === 'ask' || o.side === 'A' ? 'ask' : 'bid',
    price: o.price ?? '',
    originalQty: o.origSz,
    remainingQty: o.sz,
    filledQty: subtractDecimals(o.origSz, o.sz),
    timeMs: o.timestamp,
  }
}

/** a - b on decimal strings, exact (18 places covers every listed quantity). */
function subtractDecimals(a: string, b: string): string {
  try {
    return formatAtoms(parseSignedDecimal(a, 18) - parseSignedDecimal(b, 18), 18)
  } catch {
    return ''
  }
}

function fillViews(fills: readonly StreamFill[], now: number): FillView[] {
  const from = now - FILLS_WINDOW_MS
  const out: FillView[] = []
  for (let i = fills.length - 1; i >= 0 && out.length < 200; i--) {
    const f = fills[i]!
    if (f.time < from) break
    out.push({
      tid: String(f.tid),
      marketId: f.coin ?? '',
      side: f.side,
      price: f.px ?? '',
      size: f.sz ?? '',
      fee: f.fee,
      feeAssetId: f.feeAssetId,
      timeMs: f.time,
      oid: f.oid === null ? null : String(f.oid),
      cloid: f.cloid,
    })
  }
  return out
}
