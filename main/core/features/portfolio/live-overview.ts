import { formatAccount, formatNumber, formatUsdCents } from '../../../contract/format'
import type { OverviewView, StreamStatus as StreamStatusView } from '../../../contract/types'
import type { SettingsStore } from '../../config/settings'
import type { Lane } from '../../exchange/scheduler'
import type { EventHub } from '../../ipc/events'
import type { Notify } from '../../ipc/notify'
import type { SessionHolder, NetworkSession } from '../../session'
import type { StreamPool } from '../../streams/pool'
import type { AccountDirectory } from '../accounts'
import { agentsFor, type AgentKeyDirectory, type AgentsLive } from '../agents'
import type { CreditLive } from '../credit'
import { LeadingBatch } from './leading-batch'
import { LiveAccounts } from './live-accounts'
import { portfolioFor, type PortfolioServiceDeps } from './portfolio-for-session'
import { IDENTITY_RECHECK_MS } from './portfolio.service'
import { streamTargetsOf } from './stream-targets'

export interface LiveOverviewDeps extends PortfolioServiceDeps {
  sessions: SessionHolder
  accounts: AccountDirectory
  agentKeys: AgentKeyDirectory
  settings: SettingsStore
  events: EventHub
  notify: Notify
  now: () => number
  /** true while a vault exists (reconnects reconcile only then) */
  hasVault: () => boolean
  /** Agent slots read after a write change the overview's agent count. */
  agents?: AgentsLive
  /** Credit pages on screen stream first, as account pages do. */
  credit?: CreditLive
}

/**
 * Keeps the overview current and pushes it: stream frames patch the changed rows at once
 * (no request), other changes trigger one coalesced full recomputation at a time, and a
 * background pass refreshes what streams do not carry. Also announces fills, stream status
 * and credit-health warnings.
 */
export class LiveOverview {
  private last: OverviewView | null = null
  private readonly startedAt: number
  private readonly warned = new Set<string>()
  private markets: { s: NetworkSession; value: Promise<Map<string, { symbol: string; base: string; quote: string }>> } | null = null
  private readonly agentsRead = new Set<string>()
  /** Full recomputations: the first at once, a burst of requests within 250 ms makes one more. */
  private readonly full = new LeadingBatch<never>(250, () => this.runPush())
  /** Balance-frame patches: at once, then at most one per 16 ms (a frame at 60 Hz). */
  private readonly patches = new LeadingBatch<string>(16, (users) => this.patch(users))
  private patchSession: NetworkSession | null = null
  /** One set per full computation in progress: the users patched meanwhile. */
  private readonly patchedDuring = new Set<Set<string>>()
  /**
   * The stream status as frames arrive: at most every 500 ms (computing it walks every socket's
   * subscriptions; per frame, at 200 accounts, that was seconds of a start-up). Sockets opening,
   * closing or dropping are announced at once through `onStatusChange`.
   */
  private statusPool: StreamPool | null = null
  private readonly statusOnFrames = new LeadingBatch<never>(500, () => this.statusPool && this.streamStatus(this.statusPool))
  private refreshTimer: ReturnType<typeof setTimeout> | null = null
  private pushing: Promise<void> | null = null
  private pushAgain = false
  private lastStreamKey = ''
  private lastStreamAt = 0
  private closed = false

  /** Account pages and their write follow-up from the same live state. */
  readonly accounts: LiveAccounts
  private readonly offAgents: () => void

  constructor(private readonly d: LiveOverviewDeps) {
    this.startedAt = d.now()
    this.accounts = new LiveAccounts({ ...d, overviewSoon: () => this.overviewSoon() })
    // The agents feature re-reads slots after its writes (the read updates last-known state): count them again.
    this.offAgents = d.agents?.onSlots(() => this.overviewSoon()) ?? (() => {})
  }

  /** Attaches to each session the holder opens, and refreshes every `refreshMs` (0: never). */
  start(refreshMs: number): void {
    this.d.sessions.onOpened((s) => {
      this.forgetSession()
      this.attach(s)
      this.accounts.attach(s)
      this.paintCached(s)
      this.prefetchMarks(s)
    })
    if (refreshMs > 0) this.every(refreshMs)
  }

  /** The vault's accounts changed: follow them on the streams. */
  accountsChanged(): void {
    void this.d.sessions.ifOpen().then((s) => s && s.streamAccounts(streamTargetsOf(this.d.accounts)))
  }

  /**
   * What the operator asks for: the live overview when one is at hand; at start, the last known
   * state from the previous run (every row with its age) at once, replaced by push as soon as the
   * fresh one is computed. A fresh overview at start needs /info reads (hundreds of ms on the
   * 1 request/s budget, never with the network down), so it is not waited for.
   */
  async request(): Promise<OverviewView> {
    const fresh = this.overview('operator')
    if (this.last) return fresh
    const s = await this.d.sessions.current()
    const cached = portfolioFor(s, this.d).cachedOverview(this.d.accounts.refs())
    if (!cached || cached.rows.every((r) => r.fetchedAt === null)) return fresh
    // The fresh one is pushed when it lands; an error then is reported by the next request.
    void fresh.then((v) => this.d.events.emit('state.overview', v)).catch(() => {})
    return cached
  }

  /** Pushes last-known state at once when a session opens, before anything is read. */
  private paintCached(s: NetworkSession): void {
    if (this.d.accounts.refs().length === 0) return
    const cached = portfolioFor(s, this.d).cachedOverview(this.d.accounts.refs())
    if (cached && !this.last) this.d.events.emit('state.overview', cached)
  }

  /**
   * Marks and the oracle status are read as the session opens, while the operator unlocks: they
   * are two /info reads a second apart (the budget holds one second of allowance), and the first
   * fresh overview waits for both. In the operator's lane, because that overview is what the
   * operator opened the desk to see; every other start-up reader (alerts, pushes) then shares
   * this fetch rather than queueing its own behind it.
   */
  private prefetchMarks(s: NetworkSession): void {
    if (this.d.accounts.refs().length === 0) return
    void s.market.get('operator').catch(() => {})
  }

  /** The overview of every account; remembered as the base that balance frames patch. */
  async overview(lane: Lane): Promise<OverviewView> {
    const s = await this.d.sessions.current()
    // Rows patched from balance frames while this view is computed (at 200 accounts that takes a
    // while): the view read them before the frame, so they are patched again from live state
    // below; otherwise the full push would put the older balance back on screen until the next one.
    const patchedMeanwhile = new Set<string>()
    this.patchedDuring.add(patchedMeanwhile)
    let view: OverviewView
    try {
      view = await portfolioFor(s, this.d).overview(this.d.accounts.refs(), lane)
    } finally {
      this.patchedDuring.delete(patchedMeanwhile)
    }
    if (patchedMeanwhile.size > 0) view = portfolioFor(s, this.d).patchOverview(view, patchedMeanwhile) ?? view
    let kindsChanged = false
    for (const row of view.rows) if (this.d.accounts.remember(row.account.address, row.account)) kindsChanged = true
    if (kindsChanged) s.streamAccounts(streamTargetsOf(this.d.accounts))
    this.last = view
    this.readAgentSlotsOnce(s, view)
    return view
  }

  close(): void {
    this.closed = true
    this.offAgents()
    this.accounts.close()
    this.full.close()
    this.patches.close()
    this.statusOnFrames.close()
    if (this.refreshTimer) clearTimeout(this.refreshTimer)
  }

  private forgetSession(): void {
    this.last = null
    this.agentsRead.clear()
  }

  /** Live updates: stream changes refresh the overview soon; a reconnect triggers reconciliation. */
  private attach(s: NetworkSession): void {
    s.reconcileSoon()
    // An identity read in the background (a status the stream did not tell, an account that did
    // not exist) is on screen with the next push, not the next refresh tick.
    portfolioFor(s, this.d).onIdentityRead(() => this.overviewSoon())
    const pool = s.pool
    if (!pool) return
    // Kinds known from the last run: each account gets only its own state channel at once (a
    // credit account no spotState, a balance account no spotCreditState), so the first plan is
    // already the small one and nothing moves between sockets when the reads confirm it.
    const cached = portfolioFor(s, this.d).cachedOverview(this.d.accounts.refs())
    for (const r of cached?.rows ?? []) this.d.accounts.seed(r.account.address, r.account)
    s.streamAccounts(streamTargetsOf(this.d.accounts))
    pool.subscribe((u) => {
      if (u.kind === 'fills') {
        const fresh = u.value.slice(-5).filter((f) => f.time >= this.startedAt)
        if (fresh.length > 0) void this.announceFills(s, u.user, fresh)
      }
      if (u.kind === 'balances') this.patchSoon(s, u.user)
      else this.overviewSoon()
      this.statusPool = pool
      if (!this.closed) this.statusOnFrames.add()
    })
    pool.onReconnect(() => {
      this.streamStatus(pool, true)
      if (this.d.hasVault()) s.reconcileSoon()
    })
    // A socket dropping is announced at once (the operator sees values start to age).
    pool.onStatusChange(() => this.streamStatus(pool))
  }

  /** Pushes the stream status when it changed, and otherwise at most every 2 s (its ages tick). */
  private streamStatus(pool: StreamPool, force = false): void {
    // The key first: the full status walks every account, and sockets change state hundreds of times at start.
    const key = pool.linkKey()
    if (!force && key === this.lastStreamKey && this.d.now() - this.lastStreamAt < 2000) return
    const st = pool.status()
    this.lastStreamKey = key
    this.lastStreamAt = this.d.now()
    this.d.events.emit('stream.status', st)
  }

  /** One full overview push: at once after a quiet spell, bursts coalesced a quarter second. */
  private overviewSoon(): void {
    if (this.closed) return
    this.full.add()
  }

  /**
   * A balance frame: patch that account's row from live state and cached marks (no request),
   * so the change is on screen at once; fall back to a full push when it can't.
   */
  private patchSoon(s: NetworkSession, user: string): void {
    if (this.closed) return
    this.patchSession = s
    this.patches.add([user.toLowerCase()])
  }

  private patch(users: string[]): void {
    const s = this.patchSession
    if (!s || this.closed) return
    const patched = this.last ? portfolioFor(s, this.d).patchOverview(this.last, new Set(users)) : null
    if (!patched) return this.overviewSoon()
    for (const during of this.patchedDuring) for (const u of users) during.add(u)
    this.last = patched
    this.d.events.emit('state.overview', patched)
  }

  /** The stream status now (a window that just opened shows the panel before the next push). */
  streamStatusNow(s: NetworkSession): StreamStatusView {
    const pool = s.pool
    if (!pool)
      return {
        connected: false,
        connections: 0,
        connectionLimit: 1,
        neededConnections: 0,
        subscriptions: 0,
        lastMessageAt: null,
        reconnects: 0,
        droppedFrames: 0,
        detail: 'this host does not stream (reads through /info only)',
      }
    return pool.status()
  }

  /** One full push at a time; a request during one runs once more after it (no pile-up on the budget). */
  private runPush(): void {
    if (this.pushing) {
      this.pushAgain = true
      return
    }
    this.pushing = this.push()
      .catch(() => {})
      .finally(() => {
        this.pushing = null
        if (this.pushAgain && !this.closed) {
          this.pushAgain = false
          this.runPush()
        }
      })
  }

  private async push(): Promise<void> {
    if (this.d.accounts.refs().length === 0 || this.closed) return
    const view = await this.overview('background')
    this.d.events.emit('state.overview', view)
    const pool = (await this.d.sessions.current()).pool
    if (pool) this.streamStatus(pool)
  }

  /**
   * The overview counts agents from the last slot read; accounts not read within the hour (in
   * this run or an earlier one) get one background read each per session, then the overview is
   * pushed again. Slots change through the desk's own writes (which re-read them) or, rarely,
   * elsewhere; a read per account at every start held the /info budget ahead of balances.
   */
  private readAgentSlotsOnce(s: NetworkSession, view: OverviewView): void {
    const now = this.d.now()
    for (const row of view.rows) {
      const a = row.account.address
      if (row.account.status === 'none' || this.agentsRead.has(a)) continue
      const known = s.lastKnown.load(a, 'agents')
      if (known && now - known.fetchedAt < IDENTITY_RECHECK_MS) continue
      this.agentsRead.add(a)
      agentsFor(s, this.d.agentKeys)
        .slots(a, 'background')
        .then(
          () => this.overviewSoon(),
          () => this.agentsRead.delete(a),
        )
    }
  }

  /** Keeps the overview fresh in the background (the /info background lane yields to the operator). */
  private every(ms: number): void {
    const tick = async () => {
      if (this.closed) return
      try {
        this.runPush()
        await this.pushing
        this.healthWarnings()
      } catch {
        // A failed background pass is retried on the next tick; operator calls report their own errors.
      }
      if (!this.closed) this.refreshTimer = setTimeout(tick, ms)
    }
    this.refreshTimer = setTimeout(tick, ms)
  }

  /** One toast per fill, in the shared format: "Bought 0.01 BTC at 64,000 USDC on BTC/USDC". */
  private async announceFills(
    s: NetworkSession,
    user: string,
    fills: { side: string | null; sz: string | null; px: string | null; coin: string | number | null }[],
  ): Promise<void> {
    const markets = await this.marketNames(s).catch(() => new Map<string, { symbol: string; base: string; quote: string }>())
    if (this.closed) return
    const who = formatAccount({ address: user, label: this.d.accounts.label(user) }).text
    for (const f of fills) {
      const m = f.coin === null ? undefined : markets.get(String(f.coin))
      const side = f.side === 'B' ? 'Bought' : f.side === 'A' ? 'Sold' : 'Traded'
      const size = f.sz === null ? 'an unknown size' : `${formatNumber(f.sz)}${m ? ` ${m.base}` : ''}`
      const price = f.px === null ? '' : ` at ${formatNumber(f.px)}${m ? ` ${m.quote}` : ''}`
      this.d.notify(
        'fill',
        'success',
        `Fill: ${who}`,
        `${side} ${size}${price} on ${m ? m.symbol : `market ${String(f.coin ?? 'unknown')}`}.`,
      )
    }
  }

  /**
   * Market names for fill toasts: one `markets` read per session (markets change rarely), in the
   * marks lane: in the background lane it waits behind every account's reads (minutes at 200
   * accounts), and every fill's toast waits on it meanwhile, one suspended call per fill.
   */
  private marketNames(s: NetworkSession): Promise<Map<string, { symbol: string; base: string; quote: string }>> {
    if (this.markets?.s === s) return this.markets.value
    const value = Promise.all([s.info.markets({ lane: 'marks' }), s.market.recent('marks')]).then(([mk, md]) => {
      const out = new Map<string, { symbol: string; base: string; quote: string }>()
      for (const m of mk.markets) {
        const base = m.base_asset_id === undefined ? undefined : md.assets.get(m.base_asset_id)?.symbol
        const quote = m.quote_asset_id === undefined ? undefined : md.assets.get(m.quote_asset_id)?.symbol
        if (base && quote) out.set(String(m.market_id), { symbol: m.symbol ?? `${base}/${quote}`, base, quote })
      }
      return out
    })
    const entry = { s, value }
    this.markets = entry
    value.catch(() => {
      if (this.markets === entry) this.markets = null
    })
    return value
  }

  /**
   * A frozen credit account is announced once. A credit line in use past its limits is the credit-line
   * alert's condition (alerts/rules/ltv.ts, on the operator's alert thresholds): announcing it here too
   * raised two or three toasts for one account ("past 80%", "past 90%", "Credit health critical").
   */
  private healthWarnings(): void {
    for (const row of this.last?.rows ?? []) {
      const w = row.credit?.warning
      if (!row.credit || w !== 'frozen' || this.warned.has(row.account.address + w)) continue
      this.warned.add(row.account.address + w)
      this.d.notify('health', 'warning', `Credit health ${w}: ${formatAccount(row.account).text}`, creditWarningText(row.credit))
    }
  }
}

/** The credit-health warning's text: "$721.45 available of a $10,000.00 credit line." (shared format, cents). */
export function creditWarningText(c: { availableUsd: string | null; creditUsd: string }): string {
  return (
    `${c.availableUsd === null ? 'Available unknown (no fresh marks)' : `${formatUsdCents(c.availableUsd)} available`} of a ` +
    `${formatUsdCents(c.creditUsd)} credit line.`
  )
}
