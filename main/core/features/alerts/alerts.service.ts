import { formatAccount, formatAmount, formatPercent, formatUsd, shortAddress } from '../../../contract/format'
import type { AlertKind, AlertNotificationEvent, AlertSettingsView, AlertView, NotificationEvent } from '../../../contract/types'
import type { SettingsStore } from '../../config/settings'
import { DeskError } from '../../errors/desk-error'
import type { Fill } from '../../exchange/info/client'
import type { EventHub } from '../../ipc/events'
import type { AlertRecord, Journal, NewAlert, Submission } from '../../journal'
import { formatAtoms, parseDecimal } from '../../money/decimal'
import type { NetworkSession, SessionSource } from '../../session'
import { creditFor } from '../credit'
import { earnOverview } from '../earn'
import { catalogue, type Catalogue } from '../reports'
import { applyPatch, loadAlertSettings, settingsView, type AlertSettingsPatch, type StoredAlertSettings } from './alert-settings'
import { inQuietHours } from './quiet-hours'

export interface AlertAccount {
  address: string
  label: string
}

export interface AlertsDeps {
  journal: Journal
  events: EventHub
  sessions: SessionSource
  settings: SettingsStore
  accounts: () => readonly AlertAccount[]
  /** Earn reads go through the write side, which needs the vault unlocked. */
  vaultUnlocked: () => boolean
  now: () => number
  log?: (line: string) => void
}

const NOTIFY_KIND: Record<AlertKind, NotificationEvent['kind']> = {
  'funds-received': 'info',
  ltv: 'health',
  'order-filled': 'fill',
  'earn-claimable': 'info',
  'agent-slot-empty': 'info',
  'write-unresolved': 'rejection',
}

/** How far back each pass re-reads fills (late blocks), and how long fired keys are remembered. */
const FILLS_OVERLAP_MS = 60_000
const FIRED_KEEP_MS = 90 * 24 * 3600_000

/** An account as every alert names it: "Name (0x12ab…cdef)" (the shared format; the full address is in `account`). */
const who = (a: { address: string; label: string }) => formatAccount(a).text

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
 * Local alerts, evaluated in main on the exchange's data every `checkIntervalSec` (and at once
 * when the journal records an unresolved write). Each alert has a key and fires once per key
 * (the key is kept in the journal DB), so evaluation may run as often as it likes and across
 * restarts. Fired alerts are recorded (the newest 500 are kept), then pushed on `notify` with
 * `desktop: false` inside quiet hours.
 */
export class AlertService {
  private settingsCache: StoredAlertSettings
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<void> | null = null
  private closed = false
  /** Only a long-running host starts evaluation; a settings change elsewhere must not start it. */
  private started = false
  private readonly offJournal: () => void
  /** Accounts known to have no credit line, rechecked after a while. */
  private readonly notCredit = new Map<string, number>()

  constructor(private readonly d: AlertsDeps) {
    this.settingsCache = loadAlertSettings(d.journal.alerts, d.now())
    this.offJournal = d.journal.onChange((s) => {
      if (s.state === 'unresolved' && s.acknowledgedAt === null && this.settingsCache.rules['write-unresolved']) this.unresolvedAlert(s)
    })
  }

  start(): void {
    this.started = true
    this.schedule(1000)
  }

  async close(): Promise<void> {
    this.closed = true
    this.offJournal()
    if (this.timer) clearTimeout(this.timer)
    await this.running?.catch(() => {})
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

  /** One pass over every rule and account. A failing check is logged and skipped; the others still run. */
  async evaluate(): Promise<void> {
    if (this.closed || this.d.journal.isClosed) return
    const s = await this.d.sessions.current()
    const rules = this.settingsCache.rules
    const accounts = this.d.accounts()
    const cat = await catalogue(s)
    const net = s.name
    for (const a of accounts) {
      if (this.closed) return
      const step = async (name: string, fn: () => Promise<void>) => {
        try {
          await fn()
        } catch (e) {
          this.d.log?.(`alerts: ${name} check for ${a.address} failed: ${e instanceof Error ? e.message : String(e)}`)
        }
      }
      const newFills: Fill[] = []
      if (rules['order-filled'] || rules['funds-received']) await step('fills', async () => {
          newFills.push(...(await this.checkFills(s, cat, a, rules['order-filled'])))
        })
      if (rules['funds-received']) await step('funds', () => this.checkFunds(s, cat, a, newFills.length > 0))
      if (rules['agent-slot-empty']) await step('agents', () => this.checkAgents(s, a))
      if (rules.ltv) await step('ltv', () => this.checkLtv(s, a))
      if (rules['earn-claimable'] && this.d.vaultUnlocked()) await step('earn', () => this.checkEarn(s, a))
    }
    if (rules['write-unresolved']) for (const sub of this.d.journal.unacknowledged(net)) this.unresolvedAlert(sub)
    this.d.journal.alerts.pruneFired(this.d.now() - FIRED_KEEP_MS)
  }

  // ---- rules ----------------------------------------------------------------------------------

  /** New fills since the last pass (deduplicated on tid), one alert per order per pass. Returns the new fills. */
  private async checkFills(s: NetworkSession, cat: Catalogue, a: AlertAccount, alert: boolean): Promise<Fill[]> {
    const log = this.d.journal.alerts
    const user = a.address.toLowerCase()
    const lastKey = `fills-checked:${user}`
    const last = Number(log.getState(s.name, lastKey) ?? this.settingsCache.armedSinceMs)
    const start = Math.max(this.settingsCache.armedSinceMs, last - FILLS_OVERLAP_MS)
    const checkedAt = this.d.now()
    const fills = await s.info.allFillsSince(a.address, start)
    const fresh = fills.filter((f) => f.time >= this.settingsCache.armedSinceMs && log.getState(s.name, `fill:${user}:${f.tid}`) === null)
    for (const f of fresh) log.setState(s.name, `fill:${user}:${f.tid}`, '1')
    log.setState(s.name, lastKey, String(checkedAt))
    if (!alert) return fresh
    const byOrder = new Map<string, Fill[]>()
    for (const f of fresh) {
      const k = f.oid !== null && f.oid !== undefined ? `oid ${f.oid}` : `tid ${f.tid}`
      byOrder.set(k, [...(byOrder.get(k) ?? []), f])
    }
    for (const [k, group] of byOrder) {
      const first = group[0]!
      const m = cat.markets.get(first.market_id ?? Number(first.coin))
      const side = first.side === 'B' ? 'Bought' : first.side === 'A' ? 'Sold' : 'Traded'
      let qty = 0n
      let text: string
      if (m) {
        for (const f of group) qty += parseDecimal(f.quantity ?? f.sz ?? '0', m.quantityDecimals)
        const prices = [...new Set(group.map((f) => f.price ?? f.px ?? '?'))].map((p) => formatAmount(p, { symbol: m.quoteSymbol })).join(', ')
        text = `${side} ${formatAmount(qty, { symbol: m.baseSymbol, decimals: m.quantityDecimals })} at ${prices} on ${m.symbol} for ${who(a)} (${group.length} fill${group.length > 1 ? 's' : ''}, ${k}).`
      } else {
        text = `${side} on market ${String(first.market_id ?? first.coin)} for ${who(a)} (${group.length} fill${group.length > 1 ? 's' : ''}, ${k}).`
      }
      this.fire(s.name, `fills:${user}:${first.tid}`, { kind: 'order-filled', level: 'success', title: `Order filled: ${who(a)}`, message: text, account: a.address })
    }
    return fresh
  }

  /**
   * Funds received: a new deposit record, or a rise of an asset's total balance that neither a
   * deposit, a fill of this account nor one of the desk's own journaled writes touching this
   * address since the last pass explains (a transfer from someone else, a payout...).
   */
  private async checkFunds(s: NetworkSession, cat: Catalogue, a: AlertAccount, hadFills: boolean): Promise<void> {
    const log = this.d.journal.alerts
    const user = a.address.toLowerCase()
    const lastKey = `funds-checked:${user}`
    const last = Number(log.getState(s.name, lastKey) ?? this.settingsCache.armedSinceMs)
    const checkedAt = this.d.now()
    const deps = await s.info.deposits({ user: a.address })
    const depositedAssets = new Set<number>()
    for (const raw of deps.deposits) {
      const r = raw as Record<string, unknown>
      const time = typeof r.time_ms === 'number' ? r.time_ms : null
      const assetId = typeof r.asset_id === 'number' ? r.asset_id : null
      if (time === null || assetId === null || time < this.settingsCache.armedSinceMs) continue
      const asset = cat.assets.get(assetId)
      const amount = asset && typeof r.amount === 'string' ? formatAmount(r.amount, asset) : `an amount of asset ${assetId}`
      // A deposit first seen in this pass explains its asset's balance rise (no second alert for it).
      const fresh = this.fire(s.name, `deposit:${user}:${String(r.deposit_id ?? `${time}:${assetId}`)}`, {
        kind: 'funds-received',
        level: 'success',
        title: `Deposit received: ${who(a)}`,
        message: `${amount} deposited to ${who(a)}.`,
        account: a.address,
      })
      if (fresh) depositedAssets.add(assetId)
    }
    const balances = await s.info.userBalances({ user: a.address })
    const totals: Record<string, string> = {}
    for (const b of balances) {
      const asset = cat.assets.get(b.asset_id)
      if (!asset) continue
      totals[String(b.asset_id)] = String(parseDecimal(b.available, asset.decimals) + parseDecimal(b.locked, asset.decimals))
    }
    const prevRaw = log.getState(s.name, `balances:${user}`)
    log.setState(s.name, `balances:${user}`, JSON.stringify(totals))
    log.setState(s.name, lastKey, String(checkedAt))
    if (prevRaw === null) return // first sight: the baseline
    const prev = JSON.parse(prevRaw) as Record<string, string>
    const ownWrite = this.d.journal.list({ network: s.name, since: last - FILLS_OVERLAP_MS, order: 'newest', limit: 500 }).some((x) => x.updatedAt >= last - FILLS_OVERLAP_MS && x.body.toLowerCase().includes(user.slice(2)))
    for (const [id, now] of Object.entries(totals)) {
      const before = BigInt(prev[id] ?? '0')
      const after = BigInt(now)
      if (after <= before) continue
      if (depositedAssets.has(Number(id)) || hadFills || ownWrite) continue
      const asset = cat.assets.get(Number(id))!
      this.fire(s.name, `balance-up:${user}:${id}:${after}:${checkedAt}`, {
        kind: 'funds-received',
        level: 'info',
        title: `Funds received: ${who(a)}`,
        message: `${asset.symbol} balance of ${who(a)} rose by ${formatAmount(after - before, asset)} (to ${formatAmount(after, asset)}) with no deposit record, fill or write of this desk to explain it.`,
        account: a.address,
      })
    }
  }

  /** A slot that held an agent (as seen by an earlier pass) is empty now: once per lost agent. */
  private async checkAgents(s: NetworkSession, a: AlertAccount): Promise<void> {
    const log = this.d.journal.alerts
    const user = a.address.toLowerCase()
    const r = await s.info.userAgents({ user: a.address })
    for (const slot of r.agents) {
      const key = `agent:${user}:${slot.slot_id}`
      const had = log.getState(s.name, key)
      if (slot.agent) {
        if (had !== slot.agent.toLowerCase()) log.setState(s.name, key, slot.agent.toLowerCase())
        continue
      }
      if (had === null) continue
      log.setState(s.name, key, null)
      this.fire(s.name, `agent-empty:${user}:${slot.slot_id}:${had}`, {
        kind: 'agent-slot-empty',
        level: 'warning',
        title: `Agent slot ${slot.slot_id} empty: ${who(a)}`,
        message: `Slot ${slot.slot_id} of ${who(a)} no longer holds agent ${shortAddress(had)}. Orders signed by that agent are refused until a new agent is approved.`,
        account: a.address,
      })
    }
  }

  /** Credit line in use past each threshold: once per upward crossing (re-armed when it drops back below). */
  private async checkLtv(s: NetworkSession, a: AlertAccount): Promise<void> {
    const user = a.address.toLowerCase()
    const skipUntil = this.notCredit.get(user)
    if (skipUntil !== undefined && skipUntil > this.d.now()) return
    const h = await creditFor(s, this.d.settings).health(a.address)
    if (!h) {
      this.notCredit.set(user, this.d.now() + 10 * 60_000)
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
      const armed = log.getState(s.name, key) === null
      if (above && armed) {
        log.setState(s.name, key, String(this.d.now()))
        this.fire(s.name, `ltv:${user}:${t}:${this.d.now()}`, {
          kind: 'ltv',
          level: t === top ? 'error' : 'warning',
          // the threshold in the title: two thresholds crossed in one pass are two distinct alerts
          title: `Credit line ${formatPercent(used)} in use, past ${formatPercent(String(t))}: ${who(a)}`,
          message: `${who(a)} uses ${formatPercent(used)} of its ${formatUsd(h.creditUsd)} credit line (threshold ${formatPercent(String(t))}); available ${formatUsd(availableText)}${h.availableUsd === null ? ' (last known: marks are stale)' : ''}.`,
          account: a.address,
        })
      } else if (!above && !armed) log.setState(s.name, key, null)
    }
  }

  private async checkEarn(s: NetworkSession, a: AlertAccount): Promise<void> {
    const o = await earnOverview(s.write().earnCtx, a.address)
    for (const w of o.withdrawals) {
      if (!w.claimable) continue
      this.fire(s.name, `earn-claimable:${w.operationId}`, {
        kind: 'earn-claimable',
        level: 'info',
        title: `Earn withdrawal claimable: ${who(a)}`,
        message: `${formatAmount(w.net, { symbol: w.symbol })} (${w.type} withdrawal ${w.operationId}) of ${who(a)} can be claimed now.`,
        account: a.address,
      })
    }
  }

  private unresolvedAlert(sub: Submission): void {
    if (this.closed || this.d.journal.isClosed) return
    const label = this.d.accounts().find((x) => x.address.toLowerCase() === sub.account.toLowerCase())?.label ?? ''
    this.fire(sub.network, `unresolved:${sub.id}`, {
      kind: 'write-unresolved',
      level: 'error',
      title: `Write unresolved: ${sub.actionType}`,
      message: `${sub.summary} (${who({ address: sub.account, label })}, cloid ${sub.key}). ${sub.advice ?? 'Check the exchange, then acknowledge it in the journal before any new attempt.'}`,
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
