import type { OpenOrder as InfoOpenOrder } from '../exchange/info/types/open-orders'
import type { Clock } from './clock'
import { Coalescer } from './coalescer'
import { FillBook, fromWsFillLower, type StreamFill } from './fills'
import type { Frame } from './frames'
import type { LiveAccountState, LiveBalance, LiveCredit, LiveOrder, StateUpdate } from './live-state'
import { newEntry, type Entry, type SnapshotKind } from './account-entry'
import { RepeatTexts } from './repeat-texts'
import { anyPartiallyFilled, assetsMoved, sameBalances, sameCredit, sameOrders, samePositions } from './state-compare'

/** Fills a userFills snapshot replays (spec §6). */
const FILLS_SNAPSHOT = 100

/** A cancelled oid is kept this long: far beyond the age of any snapshot still in flight. */
const CANCELLED_KEEP_MS = 10 * 60_000

/** What the book needs from the pool around it. */
export interface AccountBookHooks {
  /** Whether `user`'s snapshot channel streams now, so state received at `at` is still current. */
  isLive(user: string, channel: 'openOrders', at: number): boolean
  /** A streamed state change came with no new fill since the previous one: a fill's frame may be lost. */
  suspectGap(user: string, reason: string): void
  /** An account gained its first or lost its last open order. */
  noteHasOrders(user: string, has: boolean): void
}

/**
 * The pool's per-account live state: balances, credit state, open orders and fills
 * (deduplicated on (user, tid)), what frames and /info answers change in them, the orders a
 * cancel removed, and the coalesced updates consumers receive.
 */
export class AccountBook {
  private readonly entries = new Map<string, Entry>()
  /** Latest snapshot texts of each topic (see `skipRepeat`). */
  private readonly repeats = new RepeatTexts()
  private readonly book = new FillBook()
  private readonly coalescer: Coalescer<StateUpdate>

  /** `coalesce`: per topic, at most `burst` deliveries per `ms`; the rest merged into one at the window's end. */
  constructor(
    private readonly clock: Clock,
    coalesce: { ms: number; burst: number },
    deliver: (u: StateUpdate) => void,
    private readonly hooks: AccountBookHooks,
  ) {
    this.coalescer = new Coalescer<StateUpdate>(
      this.clock,
      coalesce.ms,
      (_t, u) => deliver(u),
      (prev, next) => {
        if (prev.kind !== 'fills' || next.kind !== 'fills') return next
        // Pending values belong to the coalescer until delivered: append in place (no copying per frame).
        for (const f of next.value) prev.value.push(f)
        prev.at = next.at
        return prev
      },
      coalesce.burst,
    )
  }

  /** Delivers every update still held by the coalescer. */
  flush(): void {
    this.coalescer.flushAll()
  }

  /** Every account seen so far (lowercase). */
  users(): string[] {
    return [...this.entries.keys()]
  }

  state(user: string): LiveAccountState {
    return this.entryOf(user).state
  }

  /**
   * A channel stopped streaming this account (its topic left the socket, or the socket closed).
   * Streamed state was current until then even when a quiet account sent no frame for minutes, so
   * it is dated then, not at its last frame: its age grows from here until a read or a frame
   * (a strict desk moving a quiet account from the stream to its /info refresher showed it as old
   * as its subscription).
   */
  liveUntil(user: string, channel: string, at: number): void {
    const s = this.entries.get(user.toLowerCase())?.state
    if (!s) return
    const part =
      channel === 'spotState' ? s.balances : channel === 'spotCreditState' ? s.credit : channel === 'openOrders' ? s.openOrders : null
    if (part && part.at < at) part.at = at
  }

  fills(user: string): StreamFill[] {
    return this.book.list(user)
  }

  /**
   * When `user`'s balances, credit state or open orders last changed (undefined: not since its
   * first value). A fill always changes one of them, so an account quiet since its fills were
   * last confirmed has none to recover.
   */
  stateChangedAt(user: string): number | undefined {
    const at = this.entries.get(user)?.changedAt
    return at === undefined || at < 0 ? undefined : at
  }

  /** New fills seen so far for `user`: unchanged across a state change hints at a lost fill frame. */
  fillSeq(user: string): number {
    return this.entryOf(user).fillSeq
  }

  /**
   * A cross-market /info `openOrders` answer read by someone else (a write's check or its
   * verification) becomes the live state, so every screen shows what that read proved (after a
   * halt, the orders it cancelled are gone from the account page at once, not at the next frame).
   */
  noteOpenOrders(
    user: string,
    r: { orders: readonly InfoOpenOrder[]; truncated: boolean },
    at = this.clock.now(),
    issuedAt?: number,
  ): void {
    const e = this.entryOf(user)
    // A frame received after the read was sent is at least as recent as what the read saw, and
    // a streaming channel brings every later change: the answer would only set the page back.
    if (issuedAt !== undefined && e.ordersFrameAt > issuedAt && this.hooks.isLive(e.state.user, 'openOrders', e.ordersFrameAt)) return
    const orders: LiveOrder[] = r.orders.map((o) => ({
      marketId: o.market_id === undefined || o.market_id === null ? null : String(o.market_id),
      oid: o.oid,
      cloid: o.cloid ?? null,
      side: o.side ?? null,
      price: o.price ?? null,
      origSz: o.original_qty,
      sz: o.remaining_qty,
      timestamp: o.timestamp_ms ?? null,
    }))
    this.setOrders(user.toLowerCase(), orders, r.truncated, at)
  }

  /**
   * A /info balances answer read by a write's check or a preview becomes the live state, so the
   * next read uses it instead of asking /info again while the account stays quiet (no frame
   * comes after a write the stream reported before the desk journaled it). `issuedAt` is when
   * the read was sent: the state is dated then, and a frame received since wins.
   */
  noteBalances(user: string, rows: readonly { assetId: number; available: string; locked: string }[], issuedAt: number): void {
    const e = this.entryOf(user)
    const cur = e.state.balances
    if (cur && cur.at > issuedAt) return
    this.setBalances(
      e.state.user,
      rows.map((r) => ({
        assetId: r.assetId,
        coin: cur?.value.find((b) => b.assetId === r.assetId)?.coin ?? null,
        total: null,
        locked: r.locked,
        available: r.available,
      })),
      issuedAt,
    )
  }

  /**
   * Orders the exchange answered as cancelled (an accepted cancel) leave the live state at once:
   * every screen stops listing them without waiting for the next frame or a follow-up read.
   * They are remembered: an oid never opens again, so a snapshot older than the cancel (a /info
   * answer sent before it, a frame already in flight) cannot bring them back. Nothing but a
   * touch of the account would correct such a snapshot, and a quiet account is not touched.
   * A market's cancel covers the orders of that market known now.
   */
  dropOrders(user: string, what: { oids?: readonly (string | bigint)[]; marketIds?: readonly (number | string)[] }): void {
    const e = this.entryOf(user)
    const now = this.clock.now()
    for (const [oid, at] of e.cancelled) if (now - at > CANCELLED_KEEP_MS) e.cancelled.delete(oid)
    for (const oid of what.oids ?? []) {
      try {
        e.cancelled.set(BigInt(oid), now)
      } catch {
        // not an oid: nothing listed can match it
      }
    }
    const cur = e.state.openOrders
    if (!cur) return
    const markets = new Set((what.marketIds ?? []).map(String))
    for (const o of cur.value) if (o.marketId !== null && markets.has(o.marketId)) e.cancelled.set(o.oid, now)
    const left = cur.value.filter((o) => !e.cancelled.has(o.oid))
    if (left.length !== cur.value.length) this.setOrders(e.state.user, left, cur.truncated, now)
  }

  /** `user` need not be lowercase; frames' users are, and hit the map at once. */
  private entryOf(user: string): Entry {
    let e = this.entries.get(user)
    if (e) return e
    const k = user.toLowerCase()
    e = this.entries.get(k)
    if (!e) {
      e = newEntry(k)
      this.entries.set(k, e)
    }
    return e
  }

  /**
   * The throttled snapshot channels push whenever an account is touched, so the same frame
   * often comes again: an exact repeat of a topic's latest text only refreshes its age (see `RepeatTexts`).
   */
  skipRepeat(text: string): boolean {
    return this.repeats.skip(text, () => this.clock.now())
  }

  private rememberText(e: Entry, kind: SnapshotKind, text: string | undefined): void {
    this.repeats.remember(e, kind, text)
  }

  /** One parsed frame into the state (`text`: its raw form, remembered for `skipRepeat`). */
  onFrame(f: Frame, text?: string): void {
    const at = this.clock.now()
    switch (f.channel) {
      case 'userFills': {
        // The parser lowercased the user once for the frame.
        const user = f.data.user
        const ws = f.data.fills
        const fills = new Array<StreamFill>(ws.length)
        for (let i = 0; i < ws.length; i++) fills[i] = fromWsFillLower(user, ws[i]!)
        this.addFillsAt(user, fills, at)
        // A full snapshot (the service replays the latest 100) may hide older fills since the last
        // confirmed point: the account is due for the sweep as if its state had changed.
        if (f.data.isSnapshot === true && ws.length >= FILLS_SNAPSHOT) this.entryOf(user).changedAt = at
        break
      }
      case 'spotState': {
        const bs = f.data.balances
        const value = new Array<LiveBalance>(bs.length)
        for (let i = 0; i < bs.length; i++) {
          const b = bs[i]!
          value[i] = { assetId: b.token, coin: b.coin, total: b.total, locked: b.hold, available: null }
        }
        this.setBalances(f.data.user, value, at, true)
        this.rememberText(this.entryOf(f.data.user), 'balances', text)
        break
      }
      case 'spotCreditState':
        this.setCredit(
          f.data.user,
          {
            authorized: f.data.authorized,
            status: f.data.status ?? null,
            creditUsdAtoms: f.data.creditUsdAtoms ?? null,
            positions: f.data.positions,
          },
          at,
          true,
        )
        this.rememberText(this.entryOf(f.data.user), 'credit', text)
        break
      case 'openOrders': {
        const os = f.data.orders
        const value = new Array<LiveOrder>(os.length)
        for (let i = 0; i < os.length; i++) {
          const o = os[i]!
          value[i] = {
            marketId: o.coin,
            oid: o.oid,
            cloid: o.cloid ?? null,
            side: o.side,
            price: o.limitPx,
            origSz: o.origSz,
            sz: o.sz,
            timestamp: o.timestamp ?? null,
          }
        }
        this.entryOf(f.data.user).ordersFrameAt = at
        this.setOrders(f.data.user, value, false, at, true)
        this.rememberText(this.entryOf(f.data.user), 'openOrders', text)
        break
      }
      default:
        break
    }
  }

  /** Adds fills (of lowercase `user`) with dedupe; returns how many were new. */
  addFillsAt(user: string, fills: StreamFill[], at: number): number {
    const added = this.book.add(fills)
    if (added.length > 0) {
      const e = this.entryOf(user)
      e.fillSeq += added.length
      this.coalescer.push(e.topics.fills, { kind: 'fills', user: e.state.user, at, value: added })
    }
    return added.length
  }

  setBalances(user: string, value: LiveBalance[], at: number, fromStream = false): void {
    const e = this.entryOf(user)
    const s = e.state
    const prev = s.balances
    // State from /info replaces the stream's: a later repeat of the old frame is news again.
    if (!fromStream) this.rememberText(e, 'balances', undefined)
    s.balances = { value, at }
    // (After a /info answer the next frame differs in form, not in substance: no gap is suspected.)
    const prevFromStream = e.balancesFromStream
    e.balancesFromStream = fromStream
    // Repeated identical frames are normal (throttled channels push on touch): they refresh
    // the age but are not news, and must not use up the coalescer's leading edge.
    if (prev !== null && sameBalances(prev.value, value)) {
      // An /info read (strict mode's refresher, at most one a second) is news for the screen's
      // age even when nothing changed: without it a quiet polled account's row keeps the age of
      // its last change, however often it is read.
      if (!fromStream) this.coalescer.push(e.topics.balances, { kind: 'balances', user: s.user, at, value })
      return
    }
    if (prev !== null) e.changedAt = at
    // A trade moves two assets (its base and its quote); a change in one asset alone is a deposit,
    // a withdrawal, a transfer or an order placed or cancelled, never a lost fill. Suspecting
    // those cost an /info read each, and at a desk's rate of deposits and orders those reads
    // alone can use the whole /info budget.
    if (fromStream && prevFromStream && prev !== null && e.fillSeq === e.fillSeqAtBalances && assetsMoved(prev.value, value) >= 2)
      this.hooks.suspectGap(s.user, 'a balance change without a fill')
    e.fillSeqAtBalances = e.fillSeq
    this.coalescer.push(e.topics.balances, { kind: 'balances', user: s.user, at, value })
  }

  setCredit(user: string, value: LiveCredit, at: number, fromStream = false): void {
    const e = this.entryOf(user)
    const s = e.state
    const prev = s.credit
    // State from /info replaces the stream's: a later repeat of the old frame is news again.
    if (!fromStream) this.rememberText(e, 'credit', undefined)
    s.credit = { value, at }
    if (prev !== null && sameCredit(prev.value, value)) {
      // (as for balances: an /info read is news for the screen's age)
      if (!fromStream) this.coalescer.push(e.topics.credit, { kind: 'credit', user: s.user, at, value })
      return
    }
    if (prev !== null) e.changedAt = at
    if (fromStream && prev !== null && e.fillSeq === e.fillSeqAtCredit && !samePositions(prev.value, value))
      this.hooks.suspectGap(s.user, 'a position change without a fill')
    e.fillSeqAtCredit = e.fillSeq
    this.coalescer.push(e.topics.credit, { kind: 'credit', user: s.user, at, value })
  }

  private setOrders(user: string, value: LiveOrder[], truncated: boolean, at: number, fromStream = false): void {
    const e = this.entryOf(user)
    const s = e.state
    const prev = s.openOrders
    // State from /info replaces the stream's: a later repeat of the old frame is news again.
    if (!fromStream) this.rememberText(e, 'openOrders', undefined)
    // A snapshot from before an accepted cancel still lists its orders: they stay gone.
    if (e.cancelled.size > 0 && value.some((o) => e.cancelled.has(o.oid))) value = value.filter((o) => !e.cancelled.has(o.oid))
    s.openOrders = { value, at, truncated }
    this.hooks.noteHasOrders(s.user, value.length > 0)
    if (prev !== null && prev.truncated === truncated && sameOrders(prev.value, value)) return
    if (prev !== null) e.changedAt = at
    if (fromStream && prev !== null && e.fillSeq === e.fillSeqAtOrders && anyPartiallyFilled(prev.value, value))
      this.hooks.suspectGap(s.user, 'an order filled without a fill')
    e.fillSeqAtOrders = e.fillSeq
    this.coalescer.push(e.topics.openOrders, { kind: 'openOrders', user: s.user, at, value })
  }
}
