import type { AlertKind, AlertNotificationEvent, AlertSettingsView, AlertView, NotificationEvent } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { AlertRecord, NewAlert } from '../../journal'
import type { AssetMeta, NetworkSession } from '../../session'
import { applyPatch, loadAlertSettings, settingsView, type AlertSettingsPatch, type StoredAlertSettings } from './alert-settings'
import { inQuietHours } from './quiet-hours'
import { checkAgents } from './rules/agent-slot-empty'
import type { AlertsDeps, MarketLabel, RuleContext, SessionState } from './rules/context'
import { checkEarn } from './rules/earn-claimable'
import { checkFunds } from './rules/funds-received'
import { checkLtv } from './rules/ltv'
import { checkFills } from './rules/order-filled'
import { unresolvedAlert } from './rules/write-unresolved'

export type { AlertAccount, AlertsDeps } from './rules/context'

const NOTIFY_KIND: Record<AlertKind, NotificationEvent['kind']> = {
  'funds-received': 'info',
  ltv: 'health',
  'order-filled': 'fill',
  'earn-claimable': 'info',
  'agent-slot-empty': 'info',
  'write-unresolved': 'rejection',
  'team-approval': 'info',
  'team-proposal': 'info',
}

const FIRED_KEEP_MS = 90 * 24 * 3600_000
/** Markets change rarely: read once per session and kept this long. */
const MARKETS_TTL_MS = 30 * 60_000

export function alertView(r: AlertRecord): AlertView {
  return {
    id: String(r.id),
    kind: r.kind as AlertKind,
    level: r.level as AlertView['level'],
    title: r.title,
    message: r.message,
    account: r.account as AlertView['account'],
    network: r.network,
    atMs: r.at,
    desktopSuppressed: r.desktopSuppressed,
    acknowledgedAt: r.acknowledgedAt,
  }
}

/**
 * Local alerts, evaluated in main on live state: fills from the stream pool's fill book
 * (deduplicated on (user, tid); the pool backfills gaps after a reconnect), balances and credit
 * state from the streams, agent slots from the last slot read (updated on writes and
 * reconnects), marks from the shared market-data cache. Stream updates trigger a debounced
 * evaluation of the accounts they touch, so an order-filled or funds-received alert follows its
 * frame within a second or two; a pass every `checkIntervalSec` covers the rest (write
 * unresolved, earn claimable, agent slots, LTV on moved marks). /info is read only for what the
 * streams do not carry: `deposits` when a balance rose, markets once per session, an account's
 * credit line while it has no live credit state, agent slots never read yet, fills of a gap
 * left by a restart — all in the background lane. Each alert has a key and fires once per key
 * (the key is kept in the journal DB), across restarts too. Fired alerts are recorded (the
 * newest 500 are kept), then pushed on `notify` with `desktop: false` inside quiet hours.
 */
export class AlertService {
  private settingsCache: StoredAlertSettings
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<void> | null = null
  private closed = false
  /** Only a long-running host starts evaluation; a settings change elsewhere must not start it. */
  private started = false
  private readonly offJournal: () => void
  private offOpened: (() => void) | undefined
  /** Accounts known to have no credit line, rechecked after a while. */
  private readonly notCredit = new Map<string, number>()
  private st: SessionState | null = null
  /** Passes run one at a time (a stream-triggered one never overlaps the timer's). */
  private chain: Promise<void> = Promise.resolve()
  /** Accounts touched by stream updates since the last stream-triggered pass. */
  private readonly dirty = new Set<string>()
  private dirtyTimer: ReturnType<typeof setTimeout> | undefined
  private dirtyDue = 0
  /**
   * The accounts of the stream-triggered pass queued behind a running one, not yet started: a
   * later burst joins it. Queuing a pass per burst piled them up without bound whenever passes ran
   * slower than bursts came (the 200-account soak, a deposit a second: 958 queued after 15 minutes).
   */
  private waiting: Set<string> | null = null

  /** What the rules (rules/) use of this service. */
  private readonly ctx: RuleContext

  constructor(private readonly d: AlertsDeps) {
    this.settingsCache = loadAlertSettings(d.journal.alerts, d.now())
    this.ctx = {
      d,
      settings: () => this.settingsCache,
      closed: () => this.closed,
      fire: (network, key, a) => this.fire(network, key, a),
      soon: (user, ms) => this.soon(user, ms),
      assets: (s) => this.assets(s),
      marketLabels: (st) => this.marketLabels(st),
      notCredit: this.notCredit,
    }
    this.offJournal = d.journal.onChange((s) => {
      if (s.state === 'unresolved' && s.acknowledgedAt === null && this.settingsCache.rules['write-unresolved'])
        unresolvedAlert(this.ctx, s)
    })
  }

  start(): void {
    this.started = true
    this.offOpened = this.d.sessions.onOpened?.((s) => {
      if (!this.closed) this.attach(s)
    })
    this.schedule(1000)
  }

  async close(): Promise<void> {
    this.closed = true
    this.offJournal()
    this.offOpened?.()
    if (this.timer) clearTimeout(this.timer)
    if (this.dirtyTimer) clearTimeout(this.dirtyTimer)
    for (const off of this.st?.offs.splice(0) ?? []) off()
    await this.running?.catch(() => {})
    await this.chain.catch(() => {})
    // Rule state is stored write-behind (one transaction per turn): store the last of it before the journal closes.
    if (!this.d.journal.isClosed) this.d.journal.alerts.flush()
  }

  settings(): AlertSettingsView {
    return settingsView(this.settingsCache)
  }

  updateSettings(patch: AlertSettingsPatch): AlertSettingsView {
    this.settingsCache = applyPatch(this.d.journal.alerts, this.settingsCache, patch)
    if (this.started) this.schedule(Math.min(1000, this.settingsCache.checkIntervalSec * 1000))
    return this.settings()
  }

  list(opts: { sinceMs?: number | undefined; limit?: number | undefined }): AlertView[] {
    return this.d.journal.alerts
      .list({
        ...(opts.sinceMs !== undefined ? { sinceMs: opts.sinceMs } : {}),
        ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      })
      .map(alertView)
  }

  acknowledge(id: string): AlertView {
    const r = this.d.journal.alerts.acknowledge(Number(id))
    if (!r) throw new DeskError('AlertNotFound', `alert ${id} is not in the log (only the newest 500 are kept)`)
    return alertView(r)
  }

  /** Acknowledges every alert in the log not yet acknowledged; returns how many it acknowledged. */
  acknowledgeAll(): { acknowledged: number } {
    let n = 0
    for (const r of this.d.journal.alerts.list()) {
      if (r.acknowledgedAt !== null) continue
      if (this.d.journal.alerts.acknowledge(r.id)?.acknowledgedAt !== null) n++
    }
    return { acknowledged: n }
  }

  private schedule(ms: number): void {
    if (this.closed) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.running = this.evaluate()
        .catch((e: unknown) => this.d.log?.(`alerts: evaluation failed: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => {
          this.running = null
          this.schedule(this.settingsCache.checkIntervalSec * 1000)
        })
    }, ms)
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  /** One full pass over every rule and account (the timer's). A failing check is logged and skipped; the others still run. */
  evaluate(): Promise<void> {
    return this.serial(() => this.pass(null))
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    const p = this.chain.then(fn)
    this.chain = p.catch(() => {})
    return p
  }

  /** Follows a session's stream pool: its updates trigger a debounced pass over the accounts they touch. */
  private attach(s: NetworkSession): SessionState {
    if (this.st?.s === s) return this.st
    for (const off of this.st?.offs.splice(0) ?? []) off()
    const st: SessionState = {
      s,
      attachedAt: this.d.now(),
      offs: [],
      seen: new Map(),
      storedCheck: new Map(),
      pendingRise: new Map(),
      depositsReadAt: new Map(),
      creditFallbackAt: new Map(),
      agentsRead: new Map(),
      earnReadAt: new Map(),
      fundsBaselineAt: new Map(),
      markets: null,
    }
    this.st = st
    this.dirty.clear()
    if (s.pool) {
      st.offs.push(
        s.pool.subscribe((u) => {
          // Open orders raise no alert; fills, balances and credit state do.
          if (u.kind !== 'openOrders') this.soon(u.user, this.d.debounceMs ?? 300)
        }),
      )
    }
    return st
  }

  /** A pass over `user` within `ms` (the earliest asked for wins; a burst makes one pass). */
  private soon(user: string, ms: number): void {
    if (this.closed || !this.started) return
    this.dirty.add(user.toLowerCase())
    const due = this.d.now() + ms
    if (this.dirtyTimer) {
      if (due >= this.dirtyDue) return
      clearTimeout(this.dirtyTimer)
    }
    this.dirtyDue = due
    this.dirtyTimer = setTimeout(() => {
      this.dirtyTimer = undefined
      if (this.waiting) {
        for (const u of this.dirty) this.waiting.add(u)
        this.dirty.clear()
        return
      }
      const users = new Set(this.dirty)
      this.dirty.clear()
      this.waiting = users
      void this.serial(() => {
        // Started: what arrives from now on waits for the next pass.
        if (this.waiting === users) this.waiting = null
        return this.pass(users)
      }).catch((e: unknown) => this.d.log?.(`alerts: evaluation failed: ${e instanceof Error ? e.message : String(e)}`))
    }, ms)
    ;(this.dirtyTimer as { unref?: () => void }).unref?.()
  }

  /**
   * One pass: `users` null is the timer's full pass (every rule, every account); otherwise the
   * accounts a stream update touched, for the rules streams drive (fills, funds, LTV).
   */
  private async pass(users: Set<string> | null): Promise<void> {
    if (this.closed || this.d.journal.isClosed) return
    const s = await this.d.sessions.current()
    const st = this.attach(s)
    const full = users === null
    const rules = this.settingsCache.rules
    const accounts = this.d.accounts().filter((a) => full || users.has(a.address.toLowerCase()))
    if (accounts.length === 0 && !full) return
    // Strict limits: the LTV alert watches every credit line, so their credit state streams first among the rest.
    if (full && s.pool)
      s.pool.setPriority(
        'alerts',
        rules.ltv ? accounts.filter((a) => s.pool!.state(a.address).credit?.value.authorized === true).map((a) => a.address) : [],
      )
    // Marks: the shared cache (one fetch serves the overview too); a stream-triggered pass never fetches.
    let md = s.market.peek()
    if (full && rules.ltv && accounts.length > 0) md = await s.market.get('background').catch(() => s.market.peek())
    for (const a of accounts) {
      if (this.closed) return
      const step = async (name: string, fn: () => Promise<void>) => {
        try {
          await fn()
        } catch (e) {
          this.d.log?.(`alerts: ${name} check for ${a.address} failed: ${e instanceof Error ? e.message : String(e)}`)
        }
      }
      if (rules['order-filled'] || rules['funds-received']) await step('fills', () => checkFills(this.ctx, st, a, rules['order-filled']))
      if (rules['funds-received']) await step('funds', () => checkFunds(this.ctx, st, a))
      if (full && rules['agent-slot-empty']) await step('agents', () => checkAgents(this.ctx, st, a))
      if (rules.ltv) await step('ltv', () => checkLtv(this.ctx, st, a, md, full))
      if (full && rules['earn-claimable'] && this.d.vaultUnlocked()) await step('earn', () => checkEarn(this.ctx, st, a))
    }
    if (!full) return
    if (rules['write-unresolved']) for (const sub of this.d.journal.unacknowledged(s.name)) unresolvedAlert(this.ctx, sub)
    this.d.journal.alerts.pruneFired(this.d.now() - FIRED_KEEP_MS)
  }

  // ---- rules ----------------------------------------------------------------------------------

  // ---- reference data ---------------------------------------------------------------------------

  /** Assets (decimals, symbols) from the shared market-data cache; fetched in the background lane only when it has none yet. */
  private async assets(s: NetworkSession): Promise<Map<number, AssetMeta>> {
    return (s.market.peek() ?? (await s.market.recent('background'))).assets
  }

  /** Market symbols and decimals for fill alerts: one background `markets` read per session (kept half an hour). */
  private marketLabels(st: SessionState): Promise<Map<number, MarketLabel>> {
    const now = this.d.now()
    if (st.markets && now - st.markets.at < MARKETS_TTL_MS) return st.markets.value
    const value = Promise.all([st.s.info.markets({ lane: 'background' }), this.assets(st.s)]).then(([mk, assets]) => {
      const out = new Map<number, MarketLabel>()
      for (const m of mk.markets) {
        if (m.base_asset_id === undefined || m.quote_asset_id === undefined) continue
        const base = assets.get(m.base_asset_id)
        const quote = assets.get(m.quote_asset_id)
        if (!base || !quote) continue
        out.set(m.market_id, {
          symbol: m.symbol ?? `${base.symbol}/${quote.symbol}`,
          baseSymbol: base.symbol,
          quoteSymbol: quote.symbol,
          quantityDecimals: m.base_quantity_decimals,
        })
      }
      return out
    })
    const entry = { at: now, value }
    st.markets = entry
    value.catch(() => {
      if (st.markets === entry) st.markets = null
    })
    return value
  }

  // ---- recording and pushing --------------------------------------------------------------------

  /**
   * An alert another feature raises from its own state (team mode's proposals), once per key like
   * every alert, unless its kind is turned off: recorded, in the panel with acknowledge, pushed on
   * `notify`. True when it fired now.
   */
  raise(network: string, key: string, a: Omit<NewAlert, 'network' | 'at' | 'desktopSuppressed'>): boolean {
    if (this.closed || this.d.journal.isClosed || !this.settingsCache.rules[a.kind as AlertKind]) return false
    return this.fire(network, key, a)
  }

  /** Records and pushes the alert unless its key already fired; true when it fired now. */
  private fire(network: string, key: string, a: Omit<NewAlert, 'network' | 'at' | 'desktopSuppressed'>): boolean {
    const at = this.d.now()
    // Desktop notifications turned off count as suppressed, like quiet hours: recorded and in the panel only.
    const quiet = inQuietHours(this.settingsCache.quietHours, new Date(at)) || !this.settingsCache.desktopNotifications
    const rec = this.d.journal.alerts.fire(key, { ...a, network, at, desktopSuppressed: quiet })
    if (!rec) return false
    const kind = rec.kind as AlertKind
    const event: AlertNotificationEvent = {
      id: `alert-${rec.id}`,
      kind: NOTIFY_KIND[kind],
      level: rec.level as NotificationEvent['level'],
      title: rec.title,
      message: rec.message,
      atMs: rec.at,
      alertId: String(rec.id),
      alertKind: kind,
      desktop: !quiet,
    }
    this.d.events.emit('notify', event)
    return true
  }
}
