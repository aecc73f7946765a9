import type { InfoClient } from '../exchange/info/client'
import { isCreditLine } from '../exchange/info/types/spot-credit-account'
import { realClock, type Clock } from './clock'
import { Coalescer } from './coalescer'
import { StreamConnection } from './connection'
import { FillBook, fromInfoFill, fromWsFill, type StreamFill } from './fills'
import { parseFrame, type Frame } from './frames'
import type { LiveAccountState, LiveBalance, LiveCredit, LiveOrder, StateUpdate } from './live-state'
import { planSubscriptions, type PlanAccount, type StreamPlan, type Subscription } from './plan'

export interface StreamPoolOptions {
  wsUrl: string
  /** Used for backfill after a reconnect, the fills sweep, and topics that do not fit the sockets. */
  info?: InfoClient
  clock?: Clock
  random?: () => number
  /** Socket cap; undefined = the fewest that stream every wanted channel. */
  maxConnections?: number
  /** At most one delivery per topic per this many ms (default 250: four a second). */
  coalesceMs?: number
  pingIntervalMs?: number
  pongTimeoutMs?: number
  backoffBaseMs?: number
  backoffMaxMs?: number
  /** Pause between two refresh passes over the polled topics (default 5 s; the scheduler sets the real pace). */
  pollIntervalMs?: number
  /** Fills sweep through /info that catches frames dropped without a disconnect (default 60 s; 0 = off). */
  reconcileIntervalMs?: number
}

/** Contract `StreamStatus`, plus the plan's note. */
export interface PoolStatus {
  connected: boolean
  connections: number
  subscriptions: number
  lastMessageAt: number | null
  reconnects: number
  detail: string
}

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
  private readonly states = new Map<string, LiveAccountState>()
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

  constructor(opts: StreamPoolOptions) {
    this.opts = opts
    this.clock = opts.clock ?? realClock
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
        return { ...next, value: prev.value }
      },
    )
  }

  /** Plans (or re-plans) the channels for these accounts; running sockets follow the new plan. */
  setAccounts(accounts: readonly PlanAccount[]): StreamPlan {
    const plan = planSubscriptions(accounts, { maxConnections: this.opts.maxConnections })
    this.currentPlan = plan
    for (const a of accounts) this.stateOf(a.address)
    if (this.running) this.applyPlan()
    return plan
  }

  plan(): StreamPlan {
    return this.currentPlan
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
    if (this.pollTimer !== undefined) this.clock.clearTimeout(this.pollTimer)
    if (this.sweepTimer !== undefined) this.clock.clearTimeout(this.sweepTimer)
    this.pollTimer = this.sweepTimer = undefined
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
    return {
      connected: this.conns.length > 0 && open.length === this.conns.length,
      connections: this.conns.length,
      subscriptions: this.conns.reduce((n, c) => n + c.subscriptions.length, 0),
      lastMessageAt: last,
      reconnects: this.conns.reduce((n, c) => n + c.reconnects, 0),
      detail: parts.join('; '),
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
  async reconcileFills(users?: readonly string[]): Promise<number> {
    const info = this.opts.info
    if (!info) return 0
    let added = 0
    for (const u of users ?? [...this.states.keys()]) {
      const user = u.toLowerCase()
      // From the last point /info confirmed, not the newest frame seen: a dropped frame can hide
      // behind a later one that did arrive.
      const since = this.verifiedThrough.get(user) ?? this.startedAt - 5 * 60_000
      const fills = await info.allFillsSince(user, Math.max(0, since), { lane: 'reconcile' })
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
          const r = await info.openOrders({ user: s.user, market_id: -1 }, { lane })
          const orders: LiveOrder[] = r.orders.map((o) => ({
            marketId: o.market_id === undefined ? null : String(o.market_id),
            oid: o.oid,
            cloid: o.cloid ?? null,
            side: o.side ?? null,
            price: o.price ?? null,
            origSz: o.original_qty,
            sz: o.remaining_qty,
            timestamp: o.timestamp_ms ?? null,
          }))
          this.setOrders(s.user, orders, r.truncated, at())
          break
        }
        case 'userFills':
          await this.reconcileFills([s.user])
          break
      }
    }
  }

  // ---- internals ---------------------------------------------------------------------------

  private stateOf(user: string): LiveAccountState {
    const k = user.toLowerCase()
    let s = this.states.get(k)
    if (!s) this.states.set(k, (s = { user: k, balances: null, credit: null, openOrders: null }))
    return s
  }

  private track<T>(p: Promise<T>): void {
    const q = p.catch((e: unknown) => {
      this.lastProblem = e instanceof Error ? e.message : String(e)
    })
    this.inflight.add(q)
    void q.finally(() => this.inflight.delete(q))
  }

  private applyPlan(): void {
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
        pongTimeoutMs: this.opts.pongTimeoutMs,
        backoffBaseMs: this.opts.backoffBaseMs,
        backoffMaxMs: this.opts.backoffMaxMs,
        onFrame: (f) => this.onFrame(f),
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
    this.pollTimer = this.clock.setTimeout(() => {
      this.pollTimer = undefined
      const polled = this.currentPlan.polled
      if (polled.length === 0) return this.schedulePoll(this.opts.pollIntervalMs ?? 5000)
      const p = this.refresh(polled).finally(() => this.schedulePoll(this.opts.pollIntervalMs ?? 5000))
      this.track(p)
    }, delay)
  }

  private scheduleSweep(): void {
    const every = this.opts.reconcileIntervalMs ?? 60_000
    if (!this.running || !this.opts.info || every <= 0) return
    this.sweepTimer = this.clock.setTimeout(() => {
      this.sweepTimer = undefined
      const p = this.reconcileFills().finally(() => this.scheduleSweep())
      this.track(p)
    }, every)
  }

  private onFrame(f: Frame): void {
    const at = this.clock.now()
    switch (f.channel) {
      case 'userFills':
        this.addFills(f.data.user, f.data.fills.map((x) => fromWsFill(f.data.user, x)))
        break
      case 'spotState':
        this.setBalances(
          f.data.user,
          f.data.balances.map((b) => ({ assetId: b.token, coin: b.coin, total: b.total, locked: b.hold, available: null })),
          at,
        )
        break
      case 'spotCreditState':
        this.setCredit(
          f.data.user,
          { authorized: f.data.authorized, status: f.data.status ?? null, creditUsdAtoms: f.data.creditUsdAtoms ?? null, positions: f.data.positions },
          at,
        )
        break
      case 'openOrders':
        this.setOrders(
          f.data.user,
          f.data.orders.map((o) => ({ marketId: o.coin, oid: o.oid, cloid: o.cloid ?? null, side: o.side, price: o.limitPx, origSz: o.origSz, sz: o.sz, timestamp: o.timestamp ?? null })),
          false,
          at,
        )
        break
      default:
        break
    }
  }

  /** Adds fills with dedupe; returns how many were new. Exposed for the ingest benchmark. */
  addFills(user: string, fills: StreamFill[]): number {
    const added = this.book.add(fills)
    if (added.length > 0) this.coalescer.push(`fills:${user.toLowerCase()}`, { kind: 'fills', user: user.toLowerCase(), at: this.clock.now(), value: added })
    return added.length
  }

  private setBalances(user: string, value: LiveBalance[], at: number): void {
    const s = this.stateOf(user)
    s.balances = { value, at }
    this.coalescer.push(`balances:${s.user}`, { kind: 'balances', user: s.user, at, value })
  }

  private setCredit(user: string, value: LiveCredit, at: number): void {
    const s = this.stateOf(user)
    s.credit = { value, at }
    this.coalescer.push(`credit:${s.user}`, { kind: 'credit', user: s.user, at, value })
  }

  private setOrders(user: string, value: LiveOrder[], truncated: boolean, at: number): void {
    const s = this.stateOf(user)
    s.openOrders = { value, at, truncated }
    this.coalescer.push(`openOrders:${s.user}`, { kind: 'openOrders', user: s.user, at, value })
  }

  /** Feeds one raw frame text through parse, dedupe and coalescing, as a socket message is (ingest benchmark). */
  ingestText(text: string): void {
    this.onFrame(parseFrame(text))
  }
}
