import type { OpenOrder as InfoOpenOrder } from '../exchange/info/types/open-orders'
import { AccountBook } from './account-book'
import { InfoBackfill } from './backfill'
import { InfoPoller } from './info-poller'
import { LogLimiter } from './log-limiter'
import { realClock, type Clock } from './clock'
import { MinuteConnectBudget } from './connect-budget'
import type { StreamConnection } from './connection'
import type { StreamFill } from './fills'
import { parseFrame, type Frame } from './frames'
import type { LiveAccountState, StateUpdate } from './live-state'
import { planSubscriptions, subscriptionKey, type PlanAccount, type StreamPlan, type Subscription } from './plan'
import type { PoolStatus, StreamPoolOptions } from './pool-options'
import { PoolPriorities } from './pool-priorities'
import { callEach, poolSocket, topicsOf } from './pool-sockets'
import { leastFreshOf, linkKeyOf, poolStatusOf } from './pool-status'
import { planStrict, type PrioritySignal } from './strict-plan'

export type { PoolStatus, StreamPoolOptions } from './pool-options'

export { CONNECTION_LIMIT_PER_IP } from './pool-status'
export { NEW_CONNECTIONS_PER_MINUTE } from './connect-budget'

/** How long live state stands in for a read once its channel stopped streaming: the desk's 30 s data limit. */
export const LIVE_MAX_AGE_MS = 30_000

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
  /**
   * Each planned topic's socket: `isLive` asks one socket, not every one (the stream status asks
   * it for every account, on every socket state change: at 200 accounts and 61 sockets, scanning
   * all of them was half a second of a start-up's CPU).
   */
  private topicConn = new Map<string, StreamConnection>()
  private currentPlan: StreamPlan = { connections: [], polled: [], neededConnections: 0, note: null }
  /** Per-account live state (see `AccountBook`). */
  private readonly book: AccountBook
  /** Gap recovery and /info reads (see `InfoBackfill`). */
  private readonly backfill: InfoBackfill
  /** Reads of the channels that do not stream (see `InfoPoller`). */
  private readonly poller: InfoPoller
  private readonly listeners = new Set<Listener>()
  private readonly reconnectListeners = new Set<ReconnectListener>()
  private readonly statusListeners = new Set<() => void>()
  private running = false
  private startedAt = 0
  private readonly inflight = new Set<Promise<unknown>>()
  private lastProblem: string | null = null
  private readonly budget = new MinuteConnectBudget()
  private accounts: PlanAccount[] = []
  /** Strict mode's ranking: the desk's signals and the accounts with open orders (see `PoolPriorities`). */
  private readonly priorities = new PoolPriorities()
  private replanTimer: unknown
  private rotations = 0
  private readonly log: LogLimiter

  constructor(opts: StreamPoolOptions) {
    this.opts = opts
    this.clock = opts.clock ?? realClock
    this.log = new LogLimiter(this.clock, opts.log ?? ((t: string) => console.warn(t)))
    const deliver = (u: StateUpdate) => {
      for (const l of this.listeners) l(u)
    }
    this.book = new AccountBook(this.clock, { ms: opts.coalesceMs ?? 250, burst: opts.coalesceBurst ?? 4 }, deliver, {
      isLive: (user, channel, at) => this.isLive(user, channel, at),
      suspectGap: (user, reason) => this.backfill.suspectGap(user, reason),
      noteHasOrders: (user, has) => this.noteHasOrders(user, has),
    })
    this.backfill = new InfoBackfill(opts, this.clock, this.book, {
      running: () => this.running,
      startedAt: () => this.startedAt,
      streamedFillUsers: () => this.fillUsersStreamed(),
      track: (p) => this.track(p),
      log: (line) => this.log.line(line),
    })
    this.poller = new InfoPoller(opts, this.clock, this.book, this.backfill, {
      running: () => this.running,
      polled: () => this.currentPlan.polled,
      rankOf: (user) => this.rankOf(user),
      track: (p) => this.track(p),
    })
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
   * Strict mode: what the desk relies on now, per signal (`screen`: account and credit pages on
   * screen; `overview`: the rows the overview shows;
   * `writes`: accounts with pending writes; `alerts`: accounts an alert watches). Accounts with
   * open orders are ranked by the pool itself. The live set follows at once; a no-op when the
   * set of users did not change.
   */
  setPriority(signal: PrioritySignal, users: readonly string[]): void {
    if (!this.priorities.set(signal, users)) return
    if (this.opts.strict) this.setAccounts(this.accounts)
  }

  /**
   * An account's rank: the highest of its signals (0: none), plus a tenth of its next one, so
   * among the overview's rows (every account, unfiltered) those with orders or writes come first.
   */
  rankOf(user: string): number {
    return this.priorities.rankOf(user)
  }

  /** Strict limits: the accounts that do not stream are refreshed through /info in turn (`InfoPoller`). */
  get strict(): boolean {
    return this.opts.strict === true
  }

  /** Accounts whose every channel is on the socket (strict mode's live set). */
  liveUsers(): string[] {
    const p = this.currentPlan as StreamPlan & { live?: string[] }
    if (p.live) return p.live
    // Once per plan (the status asks on every socket state change).
    if (this.liveOf?.plan !== p) this.liveOf = { plan: p, users: [...new Set(p.connections.flat().map((s) => s.user))] }
    return this.liveOf.users
  }
  private liveOf: { plan: StreamPlan; users: string[] } | undefined

  /**
   * The least fresh account: the one whose balances (credit state for a credit account) were
   * current the longest ago. A streaming channel is current now. `at` null: never read.
   */
  leastFresh(): { user: string; at: number | null } | null {
    return leastFreshOf(
      this.accounts,
      this.clock.now(),
      (user) => this.stateOf(user),
      (user, ch, at) => this.isLive(user, ch, at),
    )
  }

  start(): void {
    if (this.running) return
    this.running = true
    this.startedAt = this.clock.now()
    this.applyPlan()
    this.poller.schedulePoll(0)
    this.backfill.scheduleSweep()
  }

  async stop(): Promise<void> {
    this.running = false
    for (const c of this.conns) c.stop()
    this.conns = []
    this.topicConn = new Map()
    this.backfill.stop()
    this.poller.stop()
    if (this.replanTimer !== undefined) this.clock.clearTimeout(this.replanTimer)
    this.replanTimer = undefined
    this.book.flush()
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

  /**
   * Called whenever a socket opens, closes, waits to reconnect or gets an acknowledgement. The
   * listener asks for what it needs (`linkKey` is cheap; `status` walks every account): at start
   * every socket acknowledges each of its topics, hundreds of calls at 200 accounts.
   */
  onStatusChange(listener: () => void): () => void {
    this.statusListeners.add(listener)
    return () => this.statusListeners.delete(listener)
  }

  /** Whether `user`'s snapshot channel is streaming now, so state received at `at` is still current. */
  isLive(user: string, channel: 'spotState' | 'spotCreditState' | 'openOrders', at: number): boolean {
    const sub = { channel, user: user.toLowerCase() } as Subscription
    return this.topicConn.get(subscriptionKey(sub))?.carriesLive(sub, at) ?? false
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
    return this.book.fills(user)
  }

  /**
   * What a status change is made of, without the per-account walk of `status()`: whether the
   * stream is connected, its sockets and subscriptions, reconnects and dropped frames.
   */
  linkKey(): string {
    return linkKeyOf(this.conns, this.droppedHere)
  }

  status(): PoolStatus {
    return poolStatusOf({
      conns: this.conns,
      plan: this.currentPlan,
      lastProblem: this.lastProblem,
      budget: this.budget,
      now: this.clock.now(),
      leastFresh: () => this.leastFresh(),
      droppedHere: this.droppedHere,
      gapBackfills: this.backfill.gapBackfills,
      strict: this.opts.strict === true,
      liveAccounts: () => this.liveUsers().length,
      rotations: this.rotations,
    })
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
  reconcileFills(users?: readonly string[], lane: 'reconcile' | 'background' = 'reconcile'): Promise<number> {
    return this.backfill.reconcileFills(users, lane)
  }

  /** One refresh of the given subscriptions through /info (background lane). */
  refresh(subs: readonly Subscription[], lane: 'reconcile' | 'background' = 'background'): Promise<void> {
    return this.backfill.refresh(subs, lane)
  }

  /** A cross-market /info `openOrders` answer read elsewhere becomes the live state (see `AccountBook.noteOpenOrders`). */
  noteOpenOrders(
    user: string,
    r: { orders: readonly InfoOpenOrder[]; truncated: boolean },
    at = this.clock.now(),
    issuedAt?: number,
  ): void {
    this.book.noteOpenOrders(user, r, at, issuedAt)
  }

  /** A /info balances answer read elsewhere becomes the live state, dated when it was sent (see `AccountBook.noteBalances`). */
  noteBalances(user: string, rows: readonly { assetId: number; available: string; locked: string }[], issuedAt: number): void {
    this.book.noteBalances(user, rows, issuedAt)
  }

  /** Orders the exchange answered as cancelled leave the live state at once, for good (see `AccountBook.dropOrders`). */
  dropOrders(user: string, what: { oids?: readonly (string | bigint)[]; marketIds?: readonly (number | string)[] }): void {
    this.book.dropOrders(user, what)
  }

  // ---- internals ---------------------------------------------------------------------------

  private stateOf(user: string): LiveAccountState {
    return this.book.state(user)
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
    if (!this.opts.strict || !replan || this.conns.length === 0) return
    this.rotations += this.backfill.afterRotation(fillsBefore, this.fillUsersStreamed())
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
      const c = poolSocket(this.opts, subs, {
        clock: this.clock,
        budget: this.budget,
        onFrame: (f, text) => this.book.onFrame(f, text),
        onLiveEnd: (subs, at) => {
          for (const s of subs) this.book.liveUntil(s.user, s.channel, at)
        },
        // Marked at once: should the reconnect's read fail, or a re-plan move the topic first, the sweep still reads them.
        onInterrupted: (subs) => this.backfill.markFillsDue(subs.filter((s) => s.channel === 'userFills').map((s) => s.user)),
        onText: (text) => this.book.skipRepeat(text),
        onReconnect: (c) => {
          this.track(this.backfill.afterReconnect(c.subscriptions))
          callEach(
            this.reconnectListeners,
            (l) => l({ subscriptions: c.subscriptions }),
            (m) => (this.lastProblem = m),
          )
        },
        onProblem: (t) => {
          this.lastProblem = t
          this.log.line(t)
        },
        onStateChange: () =>
          callEach(
            this.statusListeners,
            (l) => l(),
            (m) => (this.lastProblem = m),
          ),
      })
      this.conns.push(c)
      c.start()
    })
    this.topicConn = topicsOf(this.conns)
  }

  /** Strict mode: an account gaining or losing its last open order is re-ranked (after the current frame). */
  private noteHasOrders(user: string, has: boolean): void {
    if (!this.priorities.noteHasOrders(user, has)) return
    if (!this.opts.strict || this.replanTimer !== undefined) return
    this.replanTimer = this.clock.setTimeout(() => {
      this.replanTimer = undefined
      this.setAccounts(this.accounts)
    }, 0)
  }

  /** Adds fills with dedupe; returns how many were new. Exposed for the ingest benchmark. */
  addFills(user: string, fills: StreamFill[]): number {
    return this.book.addFillsAt(user.toLowerCase(), fills, this.clock.now())
  }

  private droppedHere = 0

  /**
   * Feeds one raw frame text through parse, dedupe and coalescing, as a socket message is
   * (ingest benchmark, replay). A malformed frame is dropped with one log line: false.
   */
  ingestText(text: string): boolean {
    if (this.book.skipRepeat(text)) return true
    let f: Frame
    try {
      f = parseFrame(text)
    } catch (e) {
      this.droppedHere++
      this.log.line(`dropped stream frame: ${e instanceof Error ? e.message : 'malformed'}`)
      return false
    }
    this.book.onFrame(f, text)
    return true
  }
}
