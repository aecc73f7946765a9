import { formatAccount, formatAmount, formatEarnWithdrawal, formatPercent, formatUsdCents, shortAddress } from '../../../contract/format'
import type { AgentSlotView, AlertKind, AlertNotificationEvent, AlertSettingsView, AlertView, CreditHealthView, NotificationEvent } from '../../../contract/types'
import type { SettingsStore } from '../../config/settings'
import { DeskError } from '../../errors/desk-error'
import type { EventHub } from '../../ipc/events'
import type { AlertRecord, Journal, NewAlert, Submission } from '../../journal'
import { formatAtoms, parseDecimal } from '../../money/decimal'
import type { AssetMeta, MarketData, NetworkSession, SessionSource } from '../../session'
import { fromInfoFill, type StreamFill } from '../../streams/fills'
import { creditFor } from '../credit'
import { earnOverview } from '../earn'
import { applyPatch, loadAlertSettings, settingsView, type AlertSettingsPatch, type StoredAlertSettings } from './alert-settings'
import { inQuietHours } from './quiet-hours'

export interface AlertAccount {
  address: string
  label: string
}

export interface AlertsDeps {
  journal: Journal
  events: EventHub
  /** Hosts hand in their SessionHolder; when it announces new sessions (`onOpened`) their streams are followed at once. */
  sessions: SessionSource & { onOpened?(listener: (s: NetworkSession) => void): () => void }
  settings: SettingsStore
  accounts: () => readonly AlertAccount[]
  /** Earn reads go through the write side, which needs the vault unlocked. */
  vaultUnlocked: () => boolean
  now: () => number
  log?: (line: string) => void
  /** Stream updates are evaluated this long after the last one of a burst (default 300 ms). */
  debounceMs?: number
  /** A balance rise waits this long for the fill frame that may explain it (default 2 s). */
  fundsGraceMs?: number
}

const NOTIFY_KIND: Record<AlertKind, NotificationEvent['kind']> = {
  'funds-received': 'info',
  ltv: 'health',
  'order-filled': 'fill',
  'earn-claimable': 'info',
  'agent-slot-empty': 'info',
  'write-unresolved': 'rejection',
}

/** Fills and writes this long before a balance rise explain it; fills this far behind the stored check are re-examined after a restart. */
const FILLS_OVERLAP_MS = 60_000
const FIRED_KEEP_MS = 90 * 24 * 3600_000
/** A rise a fill or a write of the desk explains reads `deposits` at most this often per account (a deposit beside trading is still reported). */
const EXPLAINED_DEPOSITS_EVERY_MS = 5 * 60_000
/** An account without live credit state is asked through /info at most this often (the stream normally brings it within seconds). */
const CREDIT_FALLBACK_EVERY_MS = 60_000
/** Accounts /info says have no credit line are not asked again for this long. */
const NOT_CREDIT_RECHECK_MS = 10 * 60_000
/** The earn API has no stream: each account's earn state is read at most this often. */
const EARN_EVERY_MS = 5 * 60_000
/**
 * The overview reads every account's agent slots once per session (saved as last-known state):
 * an account still without a known slot read this long after the session opened is read here.
 */
const AGENTS_WAIT_MS = 60_000
/** Markets change rarely: read once per session and kept this long. */
const MARKETS_TTL_MS = 30 * 60_000
/**
 * The pool's own backfill covers fills from 5 minutes before it started (its sweep) plus the
 * stream's snapshot; a stored check older than this at start leaves a gap read once.
 */
const CATCH_UP_GAP_MS = 4 * 60_000

/** An account as every alert names it: "Name (0x12ab…cdef)" (the shared format; the full address is in `account`). */
const who = (a: { address: string; label: string }) => formatAccount(a).text

interface MarketLabel {
  symbol: string
  baseSymbol: string
  quoteSymbol: string
  quantityDecimals: number
}

/** What the alert service keeps about one network session (dropped with it). */
interface SessionState {
  s: NetworkSession
  attachedAt: number
  offs: (() => void)[]
  /** per account: fill tids already examined this session */
  seen: Map<string, Set<bigint>>
  /** per account: the fills check stored by the previous run (null: none), read at first sight */
  storedCheck: Map<string, number | null>
  /** per account: when a balance rise was first seen, while it waits for its fill frame */
  pendingRise: Map<string, number>
  depositsReadAt: Map<string, number>
  creditFallbackAt: Map<string, number>
  /** agent slots read here because no slot read was known yet (once per account and session) */
  agentsRead: Map<string, { at: number; slots: { slot: number; agent: string | null }[] } | null>
  earnReadAt: Map<string, number>
  /**
   * per balances key: when this session took its funds baseline (the live state at that time).
   * Balances and deposits already there at start are in the baseline: never announced as new.
   */
  fundsBaselineAt: Map<string, number>
  markets: { at: number; value: Promise<Map<number, MarketLabel>> } | null
}

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

  constructor(private readonly d: AlertsDeps) {
    this.settingsCache = loadAlertSettings(d.journal.alerts, d.now())
    this.offJournal = d.journal.onChange((s) => {
      if (s.state === 'unresolved' && s.acknowledgedAt === null && this.settingsCache.rules['write-unresolved']) this.unresolvedAlert(s)
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
    return this.d.journal.alerts.list({ ...(opts.sinceMs !== undefined ? { sinceMs: opts.sinceMs } : {}), ...(opts.limit !== undefined ? { limit: opts.limit } : {}) }).map(alertView)
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
      const users = new Set(this.dirty)
      this.dirty.clear()
      void this.serial(() => this.pass(users)).catch((e: unknown) => this.d.log?.(`alerts: evaluation failed: ${e instanceof Error ? e.message : String(e)}`))
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
    if (full && s.pool) s.pool.setPriority('alerts', rules.ltv ? accounts.filter((a) => s.pool!.state(a.address).credit?.value.authorized === true).map((a) => a.address) : [])
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
      if (rules['order-filled'] || rules['funds-received']) await step('fills', () => this.checkFills(st, a, rules['order-filled']))
      if (rules['funds-received']) await step('funds', () => this.checkFunds(st, a))
      if (full && rules['agent-slot-empty']) await step('agents', () => this.checkAgents(st, a))
      if (rules.ltv) await step('ltv', () => this.checkLtv(st, a, md, full))
      if (full && rules['earn-claimable'] && this.d.vaultUnlocked()) await step('earn', () => this.checkEarn(st, a))
    }
    if (!full) return
    if (rules['write-unresolved']) for (const sub of this.d.journal.unacknowledged(s.name)) this.unresolvedAlert(sub)
    this.d.journal.alerts.pruneFired(this.d.now() - FIRED_KEEP_MS)
  }

  // ---- rules ----------------------------------------------------------------------------------

  /**
   * New fills in the pool's book (deduplicated on (user, tid) whatever brought them: frame,
   * reconnect backfill, sweep), one alert per order per pass. After a restart, fills since the
   * previous run's last check that the pool's own backfill does not reach are read once.
   */
  private async checkFills(st: SessionState, a: AlertAccount, alert: boolean): Promise<void> {
    const pool = st.s.pool
    if (!pool) return
    const log = this.d.journal.alerts
    const net = st.s.name
    const user = a.address.toLowerCase()
    const armed = this.settingsCache.armedSinceMs
    const checkKey = `fills-checked:${user}`
    let stored = st.storedCheck.get(user)
    if (stored === undefined) {
      const raw = log.getState(net, checkKey)
      stored = raw === null ? null : Number(raw)
      st.storedCheck.set(user, stored)
      if (stored !== null && stored < st.attachedAt - CATCH_UP_GAP_MS) this.catchUp(st, user, Math.max(armed, stored - FILLS_OVERLAP_MS))
    }
    // Fills older than the previous run's check (less the overlap for late blocks) were examined then.
    const floor = Math.max(armed, stored === null ? armed : stored - FILLS_OVERLAP_MS)
    let seen = st.seen.get(user)
    if (!seen || seen.size > 50_000) st.seen.set(user, (seen = new Set()))
    const fresh: StreamFill[] = []
    for (const f of pool.fills(user)) {
      if (seen.has(f.tid)) continue
      seen.add(f.tid)
      if (f.time < floor || log.getState(net, `fill:${user}:${f.tid}`) !== null) continue
      log.setState(net, `fill:${user}:${f.tid}`, '1')
      fresh.push(f)
    }
    log.setState(net, checkKey, String(this.d.now()))
    if (!alert || fresh.length === 0) return
    const byOrder = new Map<string, StreamFill[]>()
    for (const f of fresh) {
      const k = f.oid !== null ? `oid ${f.oid}` : `tid ${f.tid}`
      byOrder.set(k, [...(byOrder.get(k) ?? []), f])
    }
    const markets = await this.marketLabels(st).catch(() => new Map<number, MarketLabel>())
    for (const [k, group] of byOrder) {
      const first = group[0]!
      const m = first.coin === null ? undefined : markets.get(Number(first.coin))
      const side = first.side === 'B' ? 'Bought' : first.side === 'A' ? 'Sold' : 'Traded'
      let text: string
      if (m) {
        let qty = 0n
        for (const f of group) qty += parseDecimal(f.sz ?? '0', m.quantityDecimals)
        const prices = [...new Set(group.map((f) => f.px ?? '?'))].map((p) => formatAmount(p, { symbol: m.quoteSymbol })).join(', ')
        text = `${side} ${formatAmount(qty, { symbol: m.baseSymbol, decimals: m.quantityDecimals })} at ${prices} on ${m.symbol} for ${who(a)} (${group.length} fill${group.length > 1 ? 's' : ''}, ${k}).`
      } else {
        text = `${side} on market ${String(first.coin ?? '?')} for ${who(a)} (${group.length} fill${group.length > 1 ? 's' : ''}, ${k}).`
      }
      this.fire(net, `fills:${user}:${first.tid}`, { kind: 'order-filled', level: 'success', title: `Order filled: ${who(a)}`, message: text, account: a.address })
    }
  }

  /** Fills of the gap a restart left, read once into the pool's book (its update triggers a pass). */
  private catchUp(st: SessionState, user: string, since: number): void {
    const pool = st.s.pool
    if (!pool) return
    st.s.info.allFillsSince(user, since, { lane: 'background' }).then(
      (fills) => pool.addFills(user, fills.map((f) => fromInfoFill(user, f))),
      (e: unknown) => this.d.log?.(`alerts: fills since the last run for ${user} could not be read: ${e instanceof Error ? e.message : String(e)}`),
    )
  }

  /**
   * Funds received: a new deposit record, or a rise of an asset's total balance that neither a
   * deposit, a fill of this account nor one of the desk's own journaled writes touching this
   * address explains (a transfer from someone else, a payout...). Balances are the streamed
   * ones (a credit account's collateral: its positions); `deposits` is read only when one rose,
   * once the fill frame that may explain it had time to arrive.
   */
  private async checkFunds(st: SessionState, a: AlertAccount): Promise<void> {
    const pool = st.s.pool
    if (!pool) return
    const log = this.d.journal.alerts
    const net = st.s.name
    const user = a.address.toLowerCase()
    const live = pool.state(user)
    const creditMode = live.credit?.value.authorized === true
    const totals: Record<string, string> = {}
    if (creditMode) {
      for (const p of live.credit!.value.positions) totals[String(p.asset_id)] = String(p.actual_qty)
    } else if (live.balances) {
      const assets = await this.assets(st.s)
      for (const b of live.balances.value) {
        const asset = assets.get(b.assetId)
        if (!asset) continue
        totals[String(b.assetId)] = String(b.total !== null ? parseDecimal(b.total, asset.decimals) : parseDecimal(b.available ?? '0', asset.decimals) + parseDecimal(b.locked, asset.decimals))
      }
    } else return // no live state yet: the first frame (or the pool's poll) brings it
    const key = creditMode ? `positions:${user}` : `balances:${user}`
    const now = this.d.now()
    const prevRaw = log.getState(net, key)
    const save = () => {
      log.setState(net, key, JSON.stringify(totals))
      log.setState(net, `funds-checked:${user}`, String(now))
    }
    // First sight in this session: the state at start is the baseline, whatever an earlier run
    // stored (balances that moved while the desk was closed are not funds received now).
    const baselineAt = st.fundsBaselineAt.get(key)
    if (baselineAt === undefined || prevRaw === null) {
      st.fundsBaselineAt.set(key, (creditMode ? live.credit?.at : live.balances?.at) ?? now)
      return save()
    }
    const prev = JSON.parse(prevRaw) as Record<string, string>
    const rose = Object.entries(totals).filter(([id, v]) => BigInt(v) > BigInt(prev[id] ?? '0'))
    if (rose.length === 0) {
      st.pendingRise.delete(user)
      if (prevRaw !== JSON.stringify(totals)) save()
      return
    }
    // The balance frame may come before the fill frame that explains it: give that a moment.
    const grace = this.d.fundsGraceMs ?? 2000
    const firstSeen = st.pendingRise.get(user) ?? now
    st.pendingRise.set(user, firstSeen)
    if (now - firstSeen < grace) return this.soon(user, grace - (now - firstSeen) + 50)
    st.pendingRise.delete(user)
    const since = firstSeen - FILLS_OVERLAP_MS
    const hadFills = pool.fills(user).some((f) => f.time >= since)
    const ownWrite = this.d.journal.list({ network: net, since, order: 'newest', limit: 500 }).some((x) => x.updatedAt >= since && x.body.toLowerCase().includes(user.slice(2)))
    const explained = hadFills || ownWrite
    const depositedAssets = new Set<number>()
    if (!explained || now - (st.depositsReadAt.get(user) ?? -Infinity) >= EXPLAINED_DEPOSITS_EVERY_MS) {
      const deps = await st.s.info.deposits({ user: a.address }, { lane: 'background' })
      st.depositsReadAt.set(user, now)
      const assets = await this.assets(st.s)
      for (const raw of deps.deposits) {
        const r = raw as Record<string, unknown>
        const time = typeof r.time_ms === 'number' ? r.time_ms : null
        const assetId = typeof r.asset_id === 'number' ? r.asset_id : null
        // A deposit the baseline already holds was there at start: not new.
        if (time === null || assetId === null || time < this.settingsCache.armedSinceMs || time <= baselineAt) continue
        const asset = assets.get(assetId)
        const amount = asset && typeof r.amount === 'string' ? formatAmount(r.amount, asset) : `an amount of asset ${assetId}`
        // A deposit first seen now explains its asset's balance rise (no second alert for it).
        const fresh = this.fire(net, `deposit:${user}:${String(r.deposit_id ?? `${time}:${assetId}`)}`, {
          kind: 'funds-received',
          level: 'success',
          title: `Deposit received: ${who(a)}`,
          message: `${amount} deposited to ${who(a)}.`,
          account: a.address,
        })
        if (fresh) depositedAssets.add(assetId)
      }
    }
    save()
    // A credit account's positions move with its credit trading: only deposit records alert for it.
    if (creditMode || explained) return
    const assets = await this.assets(st.s)
    for (const [id, now2] of rose) {
      if (depositedAssets.has(Number(id))) continue
      const before = BigInt(prev[id] ?? '0')
      const after = BigInt(now2)
      const asset = assets.get(Number(id))!
      this.fire(net, `balance-up:${user}:${id}:${after}:${now}`, {
        kind: 'funds-received',
        level: 'info',
        title: `Funds received: ${who(a)}`,
        message: `${asset.symbol} balance of ${who(a)} rose by ${formatAmount(after - before, asset)} (to ${formatAmount(after, asset)}) with no deposit record, fill or write of this desk to explain it.`,
        account: a.address,
      })
    }
  }

  /**
   * A slot that held an agent (as seen before) is empty now: once per lost agent. Slots come
   * from the last slot read (saved as last-known state by the agents read model, which the desk
   * refreshes after agent writes and reconnects); an account still never read a minute into the
   * session gets one background read here.
   */
  private async checkAgents(st: SessionState, a: AlertAccount): Promise<void> {
    const log = this.d.journal.alerts
    const user = a.address.toLowerCase()
    const known = st.s.lastKnown.load<AgentSlotView[]>(user, 'agents')
    let slots: { slot: number; agent: string | null }[] | null = known && Array.isArray(known.value) ? known.value.map((v) => ({ slot: v.slot, agent: v.agent })) : null
    let own = st.agentsRead.get(user)
    if (own === undefined && slots === null) {
      if (this.d.now() - st.attachedAt < AGENTS_WAIT_MS) return
      st.agentsRead.set(user, null) // once per session, even when it fails
      const r = await st.s.info.userAgents({ user }, { lane: 'background' })
      st.agentsRead.set(user, (own = { at: this.d.now(), slots: r.agents.map((x) => ({ slot: x.slot_id, agent: x.agent ?? null })) }))
    }
    if (own && (slots === null || own.at > (known?.fetchedAt ?? -Infinity))) slots = own.slots
    for (const slot of slots ?? []) {
      const key = `agent:${user}:${slot.slot}`
      const had = log.getState(st.s.name, key)
      if (slot.agent) {
        if (had !== slot.agent.toLowerCase()) log.setState(st.s.name, key, slot.agent.toLowerCase())
        continue
      }
      if (had === null) continue
      log.setState(st.s.name, key, null)
      this.fire(st.s.name, `agent-empty:${user}:${slot.slot}:${had}`, {
        kind: 'agent-slot-empty',
        level: 'warning',
        title: `Agent slot ${slot.slot} empty: ${who(a)}`,
        message: `Slot ${slot.slot} of ${who(a)} no longer holds agent ${shortAddress(had)}. Orders signed by that agent are refused until a new agent is approved.`,
        account: a.address,
      })
    }
  }

  /**
   * Credit line in use past each threshold: once per upward crossing (re-armed when it drops
   * back below). From the streamed credit state and the cached marks; /info (background lane,
   * at most once a minute) only for an account with no live credit state yet that may be a
   * credit account, never for one known not to be.
   */
  private async checkLtv(st: SessionState, a: AlertAccount, md: MarketData | undefined, full: boolean): Promise<void> {
    const user = a.address.toLowerCase()
    const now = this.d.now()
    const skipUntil = this.notCredit.get(user)
    if (skipUntil !== undefined && skipUntil > now) return
    const live = st.s.pool?.state(user)
    let h: CreditHealthView | null | undefined
    if (live?.credit) {
      if (!live.credit.value.authorized) return
      h = creditFor(st.s, this.d.settings).healthLive(user, md)
      if (h === undefined) return // no marks yet, or the line's figures not streamed yet
    } else if (live?.balances && live.balances.value.length > 0) {
      return // held balances: a balance account (a credit account's balance list is empty)
    } else {
      if (!full || now - (st.creditFallbackAt.get(user) ?? -Infinity) < CREDIT_FALLBACK_EVERY_MS) return
      st.creditFallbackAt.set(user, now)
      h = await creditFor(st.s, this.d.settings).health(a.address, 'background')
    }
    if (!h) {
      this.notCredit.set(user, now + NOT_CREDIT_RECHECK_MS)
      return
    }
    const credit = parseDecimal(h.creditUsd, 8)
    const availableText = h.availableUsd ?? h.lastKnownAvailableUsd
    if (availableText === null || credit <= 0n) return
    const available = availableText.startsWith('-') ? -parseDecimal(availableText.slice(1), 8) : parseDecimal(availableText, 8)
    const usedBp = ((credit - available) * 10_000n) / credit
    const used = formatAtoms(usedBp, 2)
    const log = this.d.journal.alerts
    const thresholds = this.settingsCache.ltvThresholdsPct
    const top = Math.max(...thresholds)
    for (const t of thresholds) {
      const key = `ltv:${user}:${t}`
      const above = usedBp >= BigInt(Math.round(t * 100))
      const armed = log.getState(st.s.name, key) === null
      if (above && armed) {
        log.setState(st.s.name, key, String(now))
        this.fire(st.s.name, `ltv:${user}:${t}:${now}`, {
          kind: 'ltv',
          level: t === top ? 'error' : 'warning',
          // the threshold in the title: two thresholds crossed in one pass are two distinct alerts
          title: `Credit line ${formatPercent(used)} in use, past ${formatPercent(String(t))}: ${who(a)}`,
          message: `${who(a)} uses ${formatPercent(used)} of its ${formatUsdCents(h.creditUsd)} credit line (threshold ${formatPercent(String(t))}); available ${formatUsdCents(availableText)}${h.availableUsd === null ? ' (last known: marks are stale)' : ''}.`,
          account: a.address,
        })
      } else if (!above && !armed) log.setState(st.s.name, key, null)
    }
  }

  /** The earn API has no stream: each account is read at most every few minutes (or every pass, when passes are slower). */
  private async checkEarn(st: SessionState, a: AlertAccount): Promise<void> {
    const user = a.address.toLowerCase()
    const now = this.d.now()
    if (now - (st.earnReadAt.get(user) ?? -Infinity) < Math.max(EARN_EVERY_MS, this.settingsCache.checkIntervalSec * 1000) - 50) return
    st.earnReadAt.set(user, now)
    const o = await earnOverview(st.s.write().earnCtx, a.address)
    for (const w of o.withdrawals) {
      if (!w.claimable) continue
      this.fire(st.s.name, `earn-claimable:${w.operationId}`, {
        kind: 'earn-claimable',
        level: 'info',
        title: `Earn withdrawal claimable: ${who(a)}`,
        message: `${formatAmount(w.net, { symbol: w.symbol })} of ${who(a)} can be claimed now (${formatEarnWithdrawal(w)}).`,
        account: a.address,
      })
    }
  }

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
        out.set(m.market_id, { symbol: m.symbol ?? `${base.symbol}/${quote.symbol}`, baseSymbol: base.symbol, quoteSymbol: quote.symbol, quantityDecimals: m.base_quantity_decimals })
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

  private unresolvedAlert(sub: Submission): void {
    if (this.closed || this.d.journal.isClosed) return
    const label = this.d.accounts().find((x) => x.address.toLowerCase() === sub.account.toLowerCase())?.label ?? ''
    this.fire(sub.network, `unresolved:${sub.id}`, {
      kind: 'write-unresolved',
      level: 'error',
      title: `Write unresolved: ${sub.actionType}`,
      message: `${sub.summary} (${who({ address: sub.account, label })}, cloid ${shortAddress(sub.key)}). ${sub.advice ?? 'Check the exchange, then acknowledge it in the journal before any new attempt.'}`,
      account: sub.account,
    })
  }

  // ---- recording and pushing --------------------------------------------------------------------

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
