import type { InfoClient } from '../exchange/info/client'
import type { OpenOrder as InfoOpenOrder } from '../exchange/info/types/open-orders'
import { isCreditLine } from '../exchange/info/types/spot-credit-account'
import { realClock, type Clock } from './clock'
import { Coalescer } from './coalescer'
import { StreamConnection, type ConnectBudget, type SocketFactory } from './connection'
import { FillBook, fromInfoFill, fromWsFillLower, type StreamFill } from './fills'
import { parseFrame, type Frame } from './frames'
import type { LiveAccountState, LiveBalance, LiveCredit, LiveOrder, StateUpdate } from './live-state'
import { planSubscriptions, subscriptionKey, type PlanAccount, type StreamPlan, type Subscription } from './plan'
import { nextRefresh, planStrict, SIGNAL_RANK, type PrioritySignal } from './strict-plan'

/** Spec section 8: connections per IP (counted, not yet enforced). */
export const CONNECTION_LIMIT_PER_IP = 1
/** Spec section 8: new connections per IP per minute (counted, not yet enforced). */
export const NEW_CONNECTIONS_PER_MINUTE = 30

export interface StreamPoolOptions {
  wsUrl: string
  /** Used for backfill after a reconnect, the fills sweep, and topics that do not fit the sockets. */
  info?: InfoClient
  clock?: Clock
  random?: () => number
  /** Socket cap; undefined = the fewest that stream every wanted channel. */
  maxConnections?: number
  /** Per topic, at most `coalesceBurst` deliveries per this many ms (default 250); the rest is merged into one at the window's end. */
  coalesceMs?: number
  /** Deliveries per topic let through at once within a window (default 4: spaced changes are never held; bursts are). */
  coalesceBurst?: number
  /** Keep-alive ping period when nothing was sent (default 30 s). */
  pingIntervalMs?: number
  /** Probe a socket silent for this long (default 5 s) ... */
  silenceMs?: number
  /** ... and replace it when the probe is not answered within this (default 3 s). */
  pongTimeoutMs?: number
  backoffBaseMs?: number
  backoffMaxMs?: number
  /** Inbound frames above this break the connection (default 4 MiB). */
  maxFrameBytes?: number
  /** Socket factory (tests use a fake socket). */
  createSocket?: SocketFactory
  /** One line per dropped frame or socket problem (default console.warn; at most 20 a minute). */
  log?: (line: string) => void
  /** A suspected fills gap waits this long for the late frame before asking /info (default 500 ms). */
  gapGraceMs?: number
  /** At most one gap backfill per user per this many ms (default 2 s; /info's scheduler sets the real pace). */
  gapMinIntervalMs?: number
  /** Pause between two refresh passes over the polled topics (default 5 s; the scheduler sets the real pace). */
  pollIntervalMs?: number
  /** Fills sweep through /info that catches frames dropped without a disconnect (default 60 s; 0 = off). */
  reconcileIntervalMs?: number
  /**
   * Strict limits (spec §8 as if every counted limit were enforced): one socket, at most 10
   * subscriptions, the accounts that matter most stream (see `setPriority`), the rest are read
   * through /info one channel at a time, most due first. The 30 new connections a minute are
   * respected in both modes. Whether a network runs strict is decided in config (`strictLimitsFor`).
   */
  strict?: boolean
  /** Strict mode: a polled channel is read again once this old, times its channel period (default 5 s; /info's scheduler sets the real pace). */
  pollMinAgeMs?: number
}

/** Contract `StreamStatus`, plus the plan's note. */
export interface PoolStatus {
  connected: boolean
  connections: number
  subscriptions: number
  lastMessageAt: number | null
  reconnects: number
  detail: string
  /** The spec's counted connections per IP (1); `connections` above it is flagged in `detail`. */
  connectionLimit: number
  /** Sockets needed to stream every wanted channel (10 subscriptions each). */
  neededConnections: number
  /** Connection attempts in the last minute, against the spec's counted 30 per minute. */
  newConnectionsLastMinute: number
  newConnectionLimitPerMinute: number
  /** Frames dropped as garbage since start. */
  droppedFrames: number
  /** Fills backfills started because a gap was suspected (not counting reconnects and the sweep). */
  gapBackfills: number
  /** Strict limits in force (one connection, 10 subscriptions). */
  strict: boolean
  /** Accounts with every channel streaming. */
  liveAccounts: number
  /** The least fresh account's balances (or credit state): its address, and when its value was current (null: never read). */
  leastFreshUser: string | null
  leastFreshAt: number | null
  /** Subscriptions moved in or out of the live set since start (each backfilled through /info). */
  rotations: number
}

/** Per-account bookkeeping beside the public state. */
interface Entry {
  state: LiveAccountState
  topics: { balances: string; credit: string; openOrders: string; fills: string }
  /** New fills seen so far (any source): a state change with no new fill since the last one hints at a lost frame. */
  fillSeq: number
  fillSeqAtBalances: number
  fillSeqAtCredit: number
  fillSeqAtOrders: number
  gapTimer: unknown
  lastGapCheckAt: number
  /** Latest frame text per snapshot kind, for `skipRepeat`. */
  texts: Partial<Record<SnapshotKind, string>>
  /** oid -> when a cancel of it was accepted (see `dropOrders`) */
  cancelled: Map<bigint, number>
  /** Whether the balances held came from a frame (not /info) */
  balancesFromStream: boolean
  /** When the latest openOrders frame arrived (repeats included) */
  ordersFrameAt: number
}

/** A cancelled oid is kept this long: far beyond the age of any snapshot still in flight. */
const CANCELLED_KEEP_MS = 10 * 60_000
/** How long live state stands in for a read once its channel stopped streaming: the desk's 30 s data limit. */
export const LIVE_MAX_AGE_MS = 30_000

type SnapshotKind = 'balances' | 'credit' | 'openOrders'

type Listener = (u: StateUpdate) => void
type ReconnectListener = (info: { subscriptions: readonly Subscription[] }) => void

/**
 * The WebSocket pool: spreads account channels over sockets (10 per socket), keeps each
 * account's live balances, credit state, open orders and fills, deduplicates fills on
 * (user, tid), backfills through /info after every reconnect, refreshes through /info what
 * does not fit, and hands consumers coalesced state updates rather than frames.
 */
export class StreamPool {
  private readonly opts: StreamPoolOptions
  private readonly clock: Clock
  private conns: StreamConnection[] = []
  private currentPlan: StreamPlan = { connections: [], polled: [], neededConnections: 0, note: null }
  private readonly entries = new Map<string, Entry>()
  /** Latest snapshot texts -> their topic (see `skipRepeat`). */
  private readonly repeats = new Map<string, { e: Entry; kind: SnapshotKind }>()
  /** How many remembered texts have each length: most new texts are ruled out without hashing. */
  private readonly repeatLengths = new Map<number, number>()
  private readonly book = new FillBook()
  private readonly listeners = new Set<Listener>()
  private readonly reconnectListeners = new Set<ReconnectListener>()
  private readonly statusListeners = new Set<(status: PoolStatus) => void>()
  private readonly coalescer: Coalescer<StateUpdate>
  private running = false
  private startedAt = 0
  private pollTimer: unknown
  private sweepTimer: unknown
  private readonly inflight = new Set<Promise<unknown>>()
  private lastProblem: string | null = null
  /** Per user: every fill up to this time (ms, inclusive bound) is confirmed through /info. */
  private readonly verifiedThrough = new Map<string, number>()
  private readonly connectAttempts: number[] = []
  private readonly budget: ConnectBudget
  private gapBackfills = 0
  private accounts: PlanAccount[] = []
  private readonly signals = new Map<PrioritySignal, Set<string>>()
  /** Users with open orders as last seen (strict mode ranks them). */
  private readonly withOrders = new Set<string>()
  private replanTimer: unknown
  /** Per user: when /info last confirmed its fills (the polled fills channel's age). */
  private readonly fillsCheckedAt = new Map<string, number>()
  /** Per polled subscription key: the last /info attempt, so a failing read is not retried in a loop. */
  private readonly pollAttempts = new Map<string, number>()
  private rotations = 0
  private readonly logLines: number[] = []
  private logSuppressed = 0

  constructor(opts: StreamPoolOptions) {
    this.opts = opts
    this.clock = opts.clock ?? realClock
    this.budget = {
      delayMs: (now) => {
        this.pruneAttempts(now)
        const a = this.connectAttempts
        return a.length < NEW_CONNECTIONS_PER_MINUTE ? 0 : a[0]! + 60_000 - now
      },
      record: (now) => {
        this.connectAttempts.push(now)
      },
    }
    this.coalescer = new Coalescer<StateUpdate>(
      this.clock,
      opts.coalesceMs ?? 250,
      (_t, u) => {
        for (const l of this.listeners) l(u)
      },
      (prev, next) => {
        if (prev.kind !== 'fills' || next.kind !== 'fills') return next
        // Pending values belong to the coalescer until delivered: append in place (no copying per frame).
        for (const f of next.value) prev.value.push(f)
        prev.at = next.at
        return prev
      },
      opts.coalesceBurst ?? 4,
    )
  }

  /** Plans (or re-plans) the channels for these accounts; running sockets follow the new plan. */
  setAccounts(accounts: readonly PlanAccount[]): StreamPlan {
    this.accounts = [...accounts]
    // Topics keep their socket across re-plans (an account's kind learnt, an account added).
    const plan = this.opts.strict
      ? planStrict(accounts, (u) => this.rankOf(u), new Set(this.liveUsers()))
      : planSubscriptions(accounts, { maxConnections: this.opts.maxConnections, previous: this.currentPlan })
    this.currentPlan = plan
    for (const a of accounts) this.stateOf(a.address)
    if (this.running) this.applyPlan()
    return plan
  }

  plan(): StreamPlan {
    return this.currentPlan
  }

  /**
   * Strict mode: what the desk relies on now, per signal (`screen`: account pages on screen;
   * `writes`: accounts with pending writes; `alerts`: accounts an alert watches). Accounts with
   * open orders are ranked by the pool itself. The live set follows at once; a no-op when the
   * set of users did not change.
   */
  setPriority(signal: PrioritySignal, users: readonly string[]): void {
    const next = new Set(users.map((u) => u.toLowerCase()))
    const prev = this.signals.get(signal)
    if (prev && prev.size === next.size && [...next].every((u) => prev.has(u))) return
    this.signals.set(signal, next)
    if (this.opts.strict) this.setAccounts(this.accounts)
  }

  /** An account's rank: the highest of its signals (0: none). */
  rankOf(user: string): number {
    const u = user.toLowerCase()
    let r = this.withOrders.has(u) ? SIGNAL_RANK.orders : 0
    for (const [sig, set] of this.signals) if (set.has(u)) r = Math.max(r, SIGNAL_RANK[sig])
    return r
  }

  /** Accounts whose every channel is on the socket (strict mode's live set). */
  liveUsers(): string[] {
    const p = this.currentPlan as StreamPlan & { live?: string[] }
    return p.live ?? [...new Set(p.connections.flat().map((s) => s.user))]
  }

  /**
   * The least fresh account: the one whose balances (credit state for a credit account) were
   * current the longest ago. A streaming channel is current now. `at` null: never read.
   */
  leastFresh(): { user: string; at: number | null } | null {
    const now = this.clock.now()
    let worst: { user: string; at: number | null } | null = null
    for (const a of this.accounts) {
      const user = a.address.toLowerCase()
      const st = this.stateOf(user)
      const when = (ch: 'spotState' | 'spotCreditState', v: { at: number } | null): number | null => (v === null ? null : this.isLive(user, ch, v.at) ? now : v.at)
      const b = a.kind === 'credit' ? null : when('spotState', st.balances)
      const c = a.kind === 'balance' ? null : when('spotCreditState', st.credit)
      const at = a.kind === 'credit' ? c : a.kind === 'balance' ? b : b === null ? c : c === null ? b : Math.max(b, c)
      if (worst === null || (worst.at !== null && (at === null || at < worst.at))) worst = { user, at }
    }
    return worst
  }

  start(): void {
    if (this.running) return
    this.running = true
    this.startedAt = this.clock.now()
    this.applyPlan()
    this.schedulePoll(0)
    this.scheduleSweep()
  }

  async stop(): Promise<void> {
    this.running = false
    for (const c of this.conns) c.stop()
    this.conns = []
    for (const e of this.entries.values()) {
      if (e.gapTimer !== undefined) this.clock.clearTimeout(e.gapTimer)
      e.gapTimer = undefined
    }
    if (this.pollTimer !== undefined) this.clock.clearTimeout(this.pollTimer)
    if (this.sweepTimer !== undefined) this.clock.clearTimeout(this.sweepTimer)
    if (this.replanTimer !== undefined) this.clock.clearTimeout(this.replanTimer)
    this.pollTimer = this.sweepTimer = this.replanTimer = undefined
    this.coalescer.flushAll()
    await this.idle()
  }

  /** Coalesced updates; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Called after a socket comes back (the pool's own backfill is already under way): the
   * journal's reconciler hooks in here to resolve entries whose outcome a gap may have hidden.
   */
  onReconnect(listener: ReconnectListener): () => void {
    this.reconnectListeners.add(listener)
    return () => this.reconnectListeners.delete(listener)
  }

  /** The pool's clock: the time base of `at` and of `noteOpenOrders`' `issuedAt`. */
  time(): number {
    return this.clock.now()
  }

  state(user: string): LiveAccountState {
    return this.stateOf(user)
  }

  /** Called whenever a socket opens, closes, waits to reconnect or gets an acknowledgement. */
  onStatusChange(listener: (status: PoolStatus) => void): () => void {
    this.statusListeners.add(listener)
    return () => this.statusListeners.delete(listener)
  }

  /** Whether `user`'s snapshot channel is streaming now, so state received at `at` is still current. */
  isLive(user: string, channel: 'spotState' | 'spotCreditState' | 'openOrders', at: number): boolean {
    const sub = { channel, user: user.toLowerCase() } as Subscription
    return this.conns.some((c) => c.carriesLive(sub, at))
  }

  /**
   * Whether live state dated `at` may stand in for a read: its channel streams (a quiet account
   * sends nothing, yet nothing changed), or it is at most `maxAgeMs` old. Otherwise (a socket
   * reconnecting, a topic moving) the caller reads /info rather than show an old value as current.
   */
  usable(user: string, channel: 'spotState' | 'spotCreditState' | 'openOrders', at: number, maxAgeMs = LIVE_MAX_AGE_MS): boolean {
    return this.isLive(user, channel, at) || this.clock.now() - at <= maxAgeMs
  }

  fills(user: string): StreamFill[] {
    return this.book.list(user)
  }

  status(): PoolStatus {
    const open = this.conns.filter((c) => c.state === 'open')
    const last = this.conns.reduce<number | null>((m, c) => (c.lastMessageAt !== null && (m === null || c.lastMessageAt > m) ? c.lastMessageAt : m), null)
    const parts: string[] = []
    parts.push(`${open.length}/${this.conns.length} connection(s) open`)
    if (this.currentPlan.note) parts.push(this.currentPlan.note)
    if (this.lastProblem) parts.push(`last problem: ${this.lastProblem}`)
    const now = this.clock.now()
    const wait = this.budget.delayMs(now)
    if (wait > 0 && this.conns.some((c) => c.state === 'waiting')) parts.push(`${NEW_CONNECTIONS_PER_MINUTE} new connections in the last minute: the next one waits ${Math.ceil(wait / 1000)} s`)
    const fresh = this.leastFresh()
    return {
      // A socket the plan just added and that is still opening is not a drop: the operator is
      // told "disconnected" only when a socket that was open is not any more.
      connected: open.length > 0 && this.conns.every((c) => c.state === 'open' || !c.hasOpened),
      connections: this.conns.length,
      subscriptions: this.conns.reduce((n, c) => n + c.subscriptions.length, 0),
      lastMessageAt: last,
      reconnects: this.conns.reduce((n, c) => n + c.reconnects, 0),
      detail: parts.join('; '),
      connectionLimit: CONNECTION_LIMIT_PER_IP,
      neededConnections: this.currentPlan.neededConnections,
      newConnectionsLastMinute: this.connectAttempts.length,
      newConnectionLimitPerMinute: NEW_CONNECTIONS_PER_MINUTE,
      droppedFrames: this.conns.reduce((n, c) => n + c.dropped, 0) + this.droppedHere,
      gapBackfills: this.gapBackfills,
      strict: this.opts.strict === true,
      liveAccounts: this.liveUsers().length,
      leastFreshUser: fresh?.user ?? null,
      leastFreshAt: fresh?.at ?? null,
      rotations: this.rotations,
    }
  }

  /**
   * Resolves once every streamed state channel (`spotState`, `spotCreditState`) has delivered
   * its first snapshot, or after `timeoutMs`; returns the subscriptions still waiting.
   */
  async waitForState(timeoutMs = 10_000): Promise<Subscription[]> {
    const pending = () =>
      this.currentPlan.connections.flat().filter((s) => {
        const st = this.stateOf(s.user)
        return (s.channel === 'spotState' && st.balances === null) || (s.channel === 'spotCreditState' && st.credit === null)
      })
    const deadline = Date.now() + timeoutMs
    while (pending().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
    return pending()
  }

  /** Drops every socket as a network failure would (they reconnect and backfill). */
  dropAll(): void {
    for (const c of this.conns) c.drop()
  }

  /** Resolves when no backfill or refresh is running. */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight])
  }

  /**
   * Fetches through /info every fill since the last confirmed point (or since the pool
   * started) for `users` (default: every account) and adds the missing ones, deduplicated on
   * (user, tid). Returns how many were new.
   */
  async reconcileFills(users?: readonly string[], lane: 'reconcile' | 'background' = 'reconcile'): Promise<number> {
    const info = this.opts.info
    if (!info) return 0
    let added = 0
    for (const u of users ?? [...this.entries.keys()]) {
      const user = u.toLowerCase()
      // From the last point /info confirmed, not the newest frame seen: a dropped frame can hide
      // behind a later one that did arrive.
      const since = this.verifiedThrough.get(user) ?? this.startedAt - 5 * 60_000
      const issuedAt = this.clock.now()
      const fills = await info.allFillsSince(user, Math.max(0, since), { lane })
      this.fillsCheckedAt.set(user, issuedAt)
      added += this.addFills(user, fills.map((f) => fromInfoFill(user, f)))
      const newest = fills.reduce((m, f) => Math.max(m, f.time), since)
      this.verifiedThrough.set(user, newest)
    }
    return added
  }

  /** One refresh of the given subscriptions through /info (background lane). */
  async refresh(subs: readonly Subscription[], lane: 'reconcile' | 'background' = 'background'): Promise<void> {
    const info = this.opts.info
    if (!info) return
    for (const s of subs) {
      const at = () => this.clock.now()
      switch (s.channel) {
        case 'spotState': {
          const rows = await info.userBalances({ user: s.user }, { lane })
          this.setBalances(s.user, rows.map((r) => ({ assetId: r.asset_id, coin: r.symbol ?? null, total: null, locked: r.locked, available: r.available })), at())
          break
        }
        case 'spotCreditState': {
          const acct = await info.spotCreditAccount({ user: s.user }, { lane })
          const positions = isCreditLine(acct) ? await info.spotCreditPositions({ user: s.user }, { lane }) : []
          this.setCredit(
            s.user,
            { authorized: isCreditLine(acct), status: acct.status ?? null, creditUsdAtoms: acct.credit_usd_atoms ?? null, positions },
            at(),
          )
          break
        }
        case 'openOrders': {
          const issuedAt = at()
          const r = await info.openOrders({ user: s.user, market_id: -1 }, { lane })
          this.noteOpenOrders(s.user, r, at(), issuedAt)
          break
        }
        case 'userFills':
          await this.reconcileFills([s.user], lane)
          break
      }
    }
  }

  /**
   * A cross-market /info `openOrders` answer read by someone else (a write's check or its
   * verification) becomes the live state, so every screen shows what that read proved (after a
   * halt, the orders it cancelled are gone from the account page at once, not at the next frame).
   */
  noteOpenOrders(user: string, r: { orders: readonly InfoOpenOrder[]; truncated: boolean }, at = this.clock.now(), issuedAt?: number): void {
    const e = this.entryOf(user)
    // A frame received after the read was sent is at least as recent as what the read saw, and
    // a streaming channel brings every later change: the answer would only set the page back.
    if (issuedAt !== undefined && e.ordersFrameAt > issuedAt && this.isLive(e.state.user, 'openOrders', e.ordersFrameAt)) return
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
      rows.map((r) => ({ assetId: r.assetId, coin: cur?.value.find((b) => b.assetId === r.assetId)?.coin ?? null, total: null, locked: r.locked, available: r.available })),
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

  // ---- internals ---------------------------------------------------------------------------

  private stateOf(user: string): LiveAccountState {
    return this.entryOf(user).state
  }

  /** `user` need not be lowercase; frames' users are, and hit the map at once. */
  private entryOf(user: string): Entry {
    let e = this.entries.get(user)
    if (e) return e
    const k = user.toLowerCase()
    e = this.entries.get(k)
    if (!e) {
      e = {
        state: { user: k, balances: null, credit: null, openOrders: null },
        topics: { balances: `balances:${k}`, credit: `credit:${k}`, openOrders: `openOrders:${k}`, fills: `fills:${k}` },
        fillSeq: 0,
        fillSeqAtBalances: 0,
        fillSeqAtCredit: 0,
        fillSeqAtOrders: 0,
        gapTimer: undefined,
        lastGapCheckAt: -Infinity,
        texts: {},
        cancelled: new Map(),
        ordersFrameAt: -Infinity,
        balancesFromStream: false,
      }
      this.entries.set(k, e)
    }
    return e
  }

  private pruneAttempts(now: number): void {
    const a = this.connectAttempts
    while (a.length > 0 && a[0]! <= now - 60_000) a.shift()
  }

  /** One line per problem, at most 20 a minute (a garbage flood must not flood the log). */
  private logLine(line: string): void {
    const now = this.clock.now()
    const l = this.logLines
    while (l.length > 0 && l[0]! <= now - 60_000) l.shift()
    if (l.length >= 20) {
      this.logSuppressed++
      return
    }
    l.push(now)
    const extra = this.logSuppressed > 0 ? ` (${this.logSuppressed} similar line(s) suppressed)` : ''
    this.logSuppressed = 0
    ;(this.opts.log ?? ((t: string) => console.warn(t)))(`stream: ${line}${extra}`)
  }

  private track<T>(p: Promise<T>): void {
    const q = p.catch((e: unknown) => {
      this.lastProblem = e instanceof Error ? e.message : String(e)
    })
    this.inflight.add(q)
    void q.finally(() => this.inflight.delete(q))
  }

  private applyPlan(): void {
    const fillsBefore = this.fillUsersStreamed()
    const replan = this.conns.length > 0
    this.applyConnections()
    if (!this.opts.strict || !replan) return
    // Rotation: an account whose fills channel moved in or out of the socket is read through
    // /info by time from its last confirmed point, deduplicated on tid (the fills book): a fill
    // between its last poll and the subscription's snapshot, or after the unsubscribe, is never lost.
    const fillsAfter = this.fillUsersStreamed()
    const moved = [...fillsBefore].filter((u) => !fillsAfter.has(u)).concat([...fillsAfter].filter((u) => !fillsBefore.has(u)))
    if (moved.length === 0 || this.conns.length === 0) return
    this.rotations += moved.length
    if (this.opts.info) this.track(this.reconcileFills(moved))
  }

  private fillUsersStreamed(): Set<string> {
    const out = new Set<string>()
    for (const c of this.conns) for (const s of c.subscriptions) if (s.channel === 'userFills') out.add(s.user)
    return out
  }

  private applyConnections(): void {
    const wanted = this.currentPlan.connections
    // Keep existing sockets, give them their new topic lists; open or close the difference.
    while (this.conns.length > wanted.length) this.conns.pop()!.stop()
    wanted.forEach((subs, i) => {
      const existing = this.conns[i]
      if (existing) return existing.setSubscriptions(subs)
      const c: StreamConnection = new StreamConnection({
        url: this.opts.wsUrl,
        subscriptions: subs,
        clock: this.clock,
        random: this.opts.random,
        pingIntervalMs: this.opts.pingIntervalMs,
        silenceMs: this.opts.silenceMs,
        pongTimeoutMs: this.opts.pongTimeoutMs,
        backoffBaseMs: this.opts.backoffBaseMs,
        backoffMaxMs: this.opts.backoffMaxMs,
        maxFrameBytes: this.opts.maxFrameBytes,
        createSocket: this.opts.createSocket,
        connectBudget: this.budget,
        onFrame: (f, text) => this.onFrame(f, text),
        onText: (text) => this.skipRepeat(text),
        onOpen: ({ reconnect }) => {
          if (!reconnect) return
          this.track(this.backfill(c.subscriptions))
          for (const l of this.reconnectListeners) {
            try {
              l({ subscriptions: c.subscriptions })
            } catch (e) {
              this.lastProblem = e instanceof Error ? e.message : String(e)
            }
          }
        },
        onProblem: (t) => {
          this.lastProblem = t
          this.logLine(t)
        },
        onStateChange: () => {
          for (const l of this.statusListeners) {
            try {
              l(this.status())
            } catch (e) {
              this.lastProblem = e instanceof Error ? e.message : String(e)
            }
          }
        },
      })
      this.conns.push(c)
      c.start()
    })
  }

  /** After a reconnect: fills since the last seen one, and open orders, through /info. */
  private async backfill(subs: readonly Subscription[]): Promise<void> {
    const fillUsers = subs.filter((s) => s.channel === 'userFills').map((s) => s.user)
    if (fillUsers.length > 0) await this.reconcileFills(fillUsers)
    await this.refresh(
      subs.filter((s) => s.channel === 'openOrders'),
      'reconcile',
    )
  }

  private schedulePoll(delay: number): void {
    if (!this.running || !this.opts.info) return
    if (this.opts.strict) {
      this.pollTimer = this.clock.setTimeout(() => this.strictPoll(), delay)
      return
    }
    this.pollTimer = this.clock.setTimeout(() => {
      this.pollTimer = undefined
      const polled = this.currentPlan.polled
      if (polled.length === 0) return this.schedulePoll(this.opts.pollIntervalMs ?? 5000)
      const p = this.refresh(polled).finally(() => this.schedulePoll(this.opts.pollIntervalMs ?? 5000))
      this.track(p)
    }, delay)
  }

  /**
   * Strict mode's refresher: one polled channel at a time, the most due first (rank, then age;
   * see `nextRefresh`), straight after the previous one; /info's scheduler sets the pace (its
   * background lane yields to the operator and writes). Nothing due: sleep until something is.
   */
  private strictPoll(): void {
    this.pollTimer = undefined
    if (!this.running) return
    const now = this.clock.now()
    const minAge = this.opts.pollMinAgeMs ?? 5000
    const cands = this.currentPlan.polled.map((sub) => {
      const at = this.channelAt(sub)
      const tried = this.pollAttempts.get(subscriptionKey(sub))
      return { sub, rank: this.rankOf(sub.user), at: at === null ? (tried ?? null) : tried === undefined ? at : Math.max(at, tried) }
    })
    const { pick, wakeAt } = nextRefresh(cands, now, minAge)
    if (!pick) return this.schedulePoll(wakeAt === null ? minAge : Math.max(1, wakeAt - now))
    this.pollAttempts.set(subscriptionKey(pick.sub), now)
    this.track(this.refresh([pick.sub]).finally(() => this.schedulePoll(0)))
  }

  /** When a channel's value was last current (read or streamed); null: never. */
  private channelAt(sub: Subscription): number | null {
    const st = this.stateOf(sub.user)
    switch (sub.channel) {
      case 'spotState':
        return st.balances?.at ?? null
      case 'spotCreditState':
        return st.credit?.at ?? null
      case 'openOrders':
        return st.openOrders?.at ?? null
      case 'userFills':
        return this.fillsCheckedAt.get(sub.user) ?? null
    }
  }

  /** Strict mode: an account gaining or losing its last open order is re-ranked (after the current frame). */
  private noteHasOrders(user: string, has: boolean): void {
    if (this.withOrders.has(user) === has) return
    if (has) this.withOrders.add(user)
    else this.withOrders.delete(user)
    if (!this.opts.strict || this.replanTimer !== undefined) return
    this.replanTimer = this.clock.setTimeout(() => {
      this.replanTimer = undefined
      this.setAccounts(this.accounts)
    }, 0)
  }

  private scheduleSweep(): void {
    const every = this.opts.reconcileIntervalMs ?? 60_000
    if (!this.running || !this.opts.info || every <= 0) return
    this.sweepTimer = this.clock.setTimeout(() => {
      this.sweepTimer = undefined
      // Strict mode: polled accounts' fills are read by the refresher; the sweep covers the streamed ones.
      const p = this.reconcileFills(this.opts.strict ? [...this.fillUsersStreamed()] : undefined).finally(() => this.scheduleSweep())
      this.track(p)
    }, every)
  }

  /**
   * The throttled snapshot channels push whenever an account is touched, so the same frame
   * often comes again. An exact repeat of a topic's latest text changes nothing but the age:
   * refresh that and skip parse and validation (the eager path would drop it as unchanged
   * anyway, after the work). Keyed by the text itself, so nothing is guessed from its layout.
   */
  private skipRepeat(text: string): boolean {
    // Cheap rejections first: hashing a long text costs more than these.
    if (this.repeatLengths.get(text.length) === undefined || text.startsWith('{"channel":"userFills"')) return false
    const hit = this.repeats.get(text)
    if (hit === undefined) return false
    const slot = hit.e.state[hit.kind]
    if (slot === null) return false
    slot.at = this.clock.now()
    if (hit.kind === 'openOrders') hit.e.ordersFrameAt = slot.at
    return true
  }

  private rememberText(e: Entry, kind: SnapshotKind, text: string | undefined): void {
    const prev = e.texts[kind]
    if (prev !== undefined) {
      this.repeats.delete(prev)
      const n = this.repeatLengths.get(prev.length)!
      if (n <= 1) this.repeatLengths.delete(prev.length)
      else this.repeatLengths.set(prev.length, n - 1)
    }
    e.texts[kind] = undefined
    // Large open-order lists are not worth keeping twice.
    if (text === undefined || text.length > 65_536) return
    e.texts[kind] = text
    this.repeats.set(text, { e, kind })
    this.repeatLengths.set(text.length, (this.repeatLengths.get(text.length) ?? 0) + 1)
  }

  private onFrame(f: Frame, text?: string): void {
    const at = this.clock.now()
    switch (f.channel) {
      case 'userFills': {
        // The parser lowercased the user once for the frame.
        const user = f.data.user
        const ws = f.data.fills
        const fills = new Array<StreamFill>(ws.length)
        for (let i = 0; i < ws.length; i++) fills[i] = fromWsFillLower(user, ws[i]!)
        this.addFillsAt(user, fills, at)
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
          { authorized: f.data.authorized, status: f.data.status ?? null, creditUsdAtoms: f.data.creditUsdAtoms ?? null, positions: f.data.positions },
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
          value[i] = { marketId: o.coin, oid: o.oid, cloid: o.cloid ?? null, side: o.side, price: o.limitPx, origSz: o.origSz, sz: o.sz, timestamp: o.timestamp ?? null }
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

  /** Adds fills with dedupe; returns how many were new. Exposed for the ingest benchmark. */
  addFills(user: string, fills: StreamFill[]): number {
    return this.addFillsAt(user.toLowerCase(), fills, this.clock.now())
  }

  private addFillsAt(user: string, fills: StreamFill[], at: number): number {
    const added = this.book.add(fills)
    if (added.length > 0) {
      const e = this.entryOf(user)
      e.fillSeq += added.length
      this.coalescer.push(e.topics.fills, { kind: 'fills', user: e.state.user, at, value: added })
    }
    return added.length
  }

  /**
   * A snapshot frame changed the balances (or positions, or an order's remaining size) but no
   * new fill arrived since the previous one: the fill's frame may have been dropped (the
   * service drops event frames without a disconnect when it falls behind). Give the frame a
   * short grace to arrive late, then read the fills through /info at once instead of waiting
   * for the minute sweep. One check per user at a time, at most one per `gapMinIntervalMs`.
   */
  private suspectGap(e: Entry, reason: string): void {
    if (!this.running || !this.opts.info || e.gapTimer !== undefined) return
    if (!this.streamsFills(e.state.user)) return // polled users are read through /info anyway
    const seq = e.fillSeq
    const now = this.clock.now()
    const grace = this.opts.gapGraceMs ?? 500
    const wait = Math.max(grace, e.lastGapCheckAt + (this.opts.gapMinIntervalMs ?? 2000) - now)
    e.gapTimer = this.clock.setTimeout(() => {
      e.gapTimer = undefined
      if (!this.running || e.fillSeq !== seq) return // the fill came after all
      e.lastGapCheckAt = this.clock.now()
      this.gapBackfills++
      const p = this.reconcileFills([e.state.user]).then((n) => {
        if (n > 0) this.logLine(`${n} fill(s) recovered through /info after ${reason} for ${e.state.user}`)
      })
      this.track(p)
    }, wait)
  }

  private streamsFills(user: string): boolean {
    for (const c of this.conns) for (const s of c.subscriptions) if (s.channel === 'userFills' && s.user === user) return true
    return false
  }

  private setBalances(user: string, value: LiveBalance[], at: number, fromStream = false): void {
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
    if (prev !== null && sameBalances(prev.value, value)) return
    if (fromStream && prevFromStream && prev !== null && e.fillSeq === e.fillSeqAtBalances) this.suspectGap(e, 'a balance change without a fill')
    e.fillSeqAtBalances = e.fillSeq
    this.coalescer.push(e.topics.balances, { kind: 'balances', user: s.user, at, value })
  }

  private setCredit(user: string, value: LiveCredit, at: number, fromStream = false): void {
    const e = this.entryOf(user)
    const s = e.state
    const prev = s.credit
    // State from /info replaces the stream's: a later repeat of the old frame is news again.
    if (!fromStream) this.rememberText(e, 'credit', undefined)
    s.credit = { value, at }
    if (prev !== null && sameCredit(prev.value, value)) return
    if (fromStream && prev !== null && e.fillSeq === e.fillSeqAtCredit && !samePositions(prev.value, value)) this.suspectGap(e, 'a position change without a fill')
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
    this.noteHasOrders(s.user, value.length > 0)
    if (prev !== null && prev.truncated === truncated && sameOrders(prev.value, value)) return
    if (fromStream && prev !== null && e.fillSeq === e.fillSeqAtOrders && anyPartiallyFilled(prev.value, value)) this.suspectGap(e, 'an order filled without a fill')
    e.fillSeqAtOrders = e.fillSeq
    this.coalescer.push(e.topics.openOrders, { kind: 'openOrders', user: s.user, at, value })
  }

  private droppedHere = 0

  /**
   * Feeds one raw frame text through parse, dedupe and coalescing, as a socket message is
   * (ingest benchmark, replay). A malformed frame is dropped with one log line: false.
   */
  ingestText(text: string): boolean {
    if (this.skipRepeat(text)) return true
    let f: Frame
    try {
      f = parseFrame(text)
    } catch (e) {
      this.droppedHere++
      this.logLine(`dropped stream frame: ${e instanceof Error ? e.message : 'malformed'}`)
      return false
    }
    this.onFrame(f, text)
    return true
  }
}

function sameBalances(a: readonly LiveBalance[], b: readonly LiveBalance[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.assetId !== y.assetId || x.total !== y.total || x.locked !== y.locked || x.available !== y.available || x.coin !== y.coin) return false
  }
  return true
}

function samePositions(a: LiveCredit, b: LiveCredit): boolean {
  if (a.positions.length !== b.positions.length) return false
  for (let i = 0; i < a.positions.length; i++) {
    const x = a.positions[i]!
    const y = b.positions[i]!
    if (x.asset_id !== y.asset_id || x.actual_qty !== y.actual_qty || x.pending_exposure_qty !== y.pending_exposure_qty) return false
  }
  return true
}

function sameCredit(a: LiveCredit, b: LiveCredit): boolean {
  return a.authorized === b.authorized && a.status === b.status && a.creditUsdAtoms === b.creditUsdAtoms && samePositions(a, b)
}

function sameOrders(a: readonly LiveOrder[], b: readonly LiveOrder[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.oid !== y.oid || x.sz !== y.sz || x.price !== y.price || x.origSz !== y.origSz || x.cloid !== y.cloid) return false
  }
  return true
}

/** Some order resting in both snapshots with a different remaining size: it traded. */
function anyPartiallyFilled(prev: readonly LiveOrder[], next: readonly LiveOrder[]): boolean {
  if (prev.length === 0 || next.length === 0) return false
  const before = new Map<bigint, string>()
  for (const o of prev) before.set(o.oid, o.sz)
  for (const o of next) {
    const sz = before.get(o.oid)
    if (sz !== undefined && sz !== o.sz) return true
  }
  return false
}
