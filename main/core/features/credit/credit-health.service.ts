import type { Address, CreditHealthView, CreditPositionView, CreditSample as CreditSampleView, WarningLevel } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { InfoClient } from '../../exchange/info/client'
import { isCreditLine } from '../../exchange/info/types/spot-credit-account'
import type { Lane } from '../../exchange/scheduler'
import type { CreditSample } from '../../journal/types'
import { formatAtoms } from '../../money/decimal'
import type { StreamPool } from '../../streams/pool'
import type { CreditPosition } from '../../exchange/info/types/spot-credit-positions'
import { markState, type MarketData, type MarketDataCache } from '../../session/market-data'
import type { LastKnownState } from '../../session/last-known'
import { creditAvailable, creditContribution, USD_DECIMALS } from '../../session/valuation'

export interface WarningThresholds {
  watchPct: number
  warningPct: number
  criticalPct: number
}

/** The part of the journal that keeps credit-health history. */
export interface CreditHistoryStore {
  appendCreditSample(network: string, account: string, sample: CreditSample): void
  creditHistory(network: string, account: string, since: number, limit?: number): CreditSample[]
}

export interface CreditHealthDeps {
  info: InfoClient
  market: MarketDataCache
  network: string
  /** live positions from the socket, when streamed */
  pool?: StreamPool
  history?: CreditHistoryStore | null
  lastKnown?: LastKnownState
  thresholds: () => WarningThresholds
  now?: () => number
  /** a new history sample is kept when figures change, or at least this often (default 60 s) */
  sampleEveryMs?: number
}

/**
 * Warning level of a credit line by the share of it in use: (credit - available) / credit.
 * Frozen wins; no figure at all is `unknown`; a negative available is `critical`.
 */
export function warningLevel(
  status: 'active' | 'frozen',
  creditUsdAtoms: bigint,
  availableUsdAtoms: bigint | null,
  t: WarningThresholds,
): WarningLevel {
  if (status === 'frozen') return 'frozen'
  if (availableUsdAtoms === null) return 'unknown'
  if (availableUsdAtoms < 0n) return 'critical'
  if (creditUsdAtoms <= 0n) return availableUsdAtoms > 0n ? 'ok' : 'critical'
  // basis points of the line in use, exact on bigints
  const usedBp = Number(((creditUsdAtoms - availableUsdAtoms) * 10_000n) / creditUsdAtoms)
  const usedPct = usedBp / 100
  if (usedPct >= t.criticalPct) return 'critical'
  if (usedPct >= t.warningPct) return 'warning'
  if (usedPct >= t.watchPct) return 'watch'
  return 'ok'
}

const usd = (x: bigint | null): string | null => (x === null ? null : formatAtoms(x, USD_DECIMALS))

/**
 * Credit health of an account: the line, available USD (and the last-known figure when marks
 * are stale), each asset's contribution after its LTV haircut, frozen status and a warning
 * level against the operator's thresholds. Every reading is appended to the history table.
 */
export class CreditHealthService {
  private readonly now: () => number
  private readonly lastSample = new Map<string, { at: number; key: string }>()
  /** The trading whitelist per account from the last /info read (the stream does not carry it). */
  private readonly whitelists = new Map<string, string[]>()

  constructor(private readonly deps: CreditHealthDeps) {
    this.now = deps.now ?? Date.now
  }

  /** Null for an address without a credit line. */
  async health(address: string, lane: Lane = 'operator'): Promise<CreditHealthView | null> {
    const user = address.toLowerCase()
    const { info, market } = this.deps
    const acct = await info.spotCreditAccount({ user }, { lane })
    if (!isCreditLine(acct)) return null
    this.whitelists.set(user, acct.credit_trading_whitelisted_market_ids ?? [])
    const live = this.deps.pool?.state(user).credit
    const positions = live && live.value.authorized ? live.value.positions : await info.spotCreditPositions({ user }, { lane })
    const md = await market.get(lane)
    return this.build(user, md, positions, {
      status: acct.status!,
      credit: acct.credit_usd_atoms!,
      available: acct.available_usd_atoms ?? null,
      lastKnown: acct.last_known_available_usd_atoms ?? null,
      whitelist: acct.credit_trading_whitelisted_market_ids ?? [],
    })
  }

  /**
   * Credit health from the streamed credit state and cached marks, without a request: the line,
   * status and positions come from `spotCreditState`; available USD is the line plus each
   * position's contribution at a fresh mark (the service's rule), last-known at any mark. The
   * trading whitelist is the one last read through /info. Undefined when the stream has not
   * delivered this account's credit state yet (the caller reads /info instead); null for an
   * address without a credit line.
   */
  healthLive(address: string, md: MarketData | undefined, maxAgeMs?: number): CreditHealthView | null | undefined {
    const user = address.toLowerCase()
    const live = this.deps.pool?.state(user).credit
    // Live state that stopped streaming and grew old is re-read through /info instead (unless the
    // caller shows it with its age: strict mode's overview, whose rows the pool refreshes in turn).
    if (!live || !md || !this.deps.pool!.usable(user, 'spotCreditState', live.at, maxAgeMs)) return undefined
    const c = live.value
    if (!c.authorized) return null
    if (c.status === null || c.creditUsdAtoms === null) return undefined
    const { available, lastKnown } = creditAvailable(md, c.creditUsdAtoms, c.positions, this.now())
    return this.build(user, md, c.positions, {
      status: c.status,
      credit: c.creditUsdAtoms,
      available,
      lastKnown,
      whitelist: this.whitelists.get(user) ?? this.deps.lastKnown?.load<CreditHealthView>(user, 'credit')?.value.tradingWhitelist ?? [],
    })
  }

  private build(
    user: string,
    md: MarketData,
    positions: readonly CreditPosition[],
    acct: { status: 'active' | 'frozen'; credit: bigint; available: bigint | null; lastKnown: bigint | null; whitelist: string[] },
  ): CreditHealthView {
    const now = this.now()
    const credit = acct.credit
    const rows: CreditPositionView[] = []
    const detail: { assetId: number; contributionUsdAtoms: string | null }[] = []
    let reason: string | null = null
    for (const p of positions) {
      const meta = md.assets.get(p.asset_id)
      if (!meta)
        throw new DeskError('UnknownAsset', `credit position in asset ${p.asset_id}, which the service does not list`, {
          assetId: p.asset_id,
        })
      const ms = markState(md, p.asset_id, now)
      const net = p.actual_qty + p.pending_exposure_qty
      const contribution = ms.mark ? creditContribution(net, meta.decimals, ms.mark.usdAtoms, meta.creditLtv) : null
      if (reason === null && (net !== 0n || p.actual_qty !== 0n) && ms.stale) {
        reason =
          md.oracle.status !== 'available'
            ? `oracle unavailable (${md.oracle.reasonCode ?? 'no reason given'}): no fresh mark for ${p.symbol}`
            : !ms.mark
              ? `no mark for ${p.symbol}`
              : `mark for ${p.symbol} is ${Math.round((ms.ageMs ?? 0) / 1000)} s old (over ${Math.round(md.markStaleAfterMs / 1000)} s)`
      }
      rows.push({
        assetId: p.asset_id,
        symbol: p.symbol,
        actual: formatAtoms(p.actual_qty, meta.decimals),
        pendingExposure: formatAtoms(p.pending_exposure_qty, meta.decimals),
        ltvPercent: meta.creditLtv,
        contributionUsd: usd(contribution),
        markUsd: ms.mark ? formatAtoms(ms.mark.usdAtoms, USD_DECIMALS) : null,
        markAgeMs: ms.ageMs,
      })
      detail.push({ assetId: p.asset_id, contributionUsdAtoms: contribution === null ? null : contribution.toString() })
    }
    const available = acct.available
    const lastKnown = acct.lastKnown
    const status = acct.status
    const t = this.deps.thresholds()
    const view: CreditHealthView = {
      address: user as Address,
      status,
      creditUsd: formatAtoms(credit, USD_DECIMALS),
      availableUsd: usd(available),
      lastKnownAvailableUsd: usd(lastKnown),
      marksStale: available === null && lastKnown !== null,
      oracle: { status: md.oracle.status, reasonCode: md.oracle.reasonCode },
      positions: rows,
      // With stale marks the level is judged on the last-known figure rather than left unknown.
      warning: warningLevel(status, credit, available ?? lastKnown, t),
      tradingWhitelist: acct.whitelist,
      availableReason:
        available === null
          ? (reason ??
            (md.oracle.status !== 'available'
              ? `oracle unavailable (${md.oracle.reasonCode ?? 'no reason given'})`
              : 'the service gave no available figure'))
          : null,
    }
    this.record(user, now, { status, credit, available, lastKnown, level: view.warning, detail })
    this.deps.lastKnown?.save(user, 'credit', view, now)
    return view
  }

  /** History for charts, oldest first. */
  history(address: string, sinceMs: number): CreditSampleView[] {
    const rows = this.deps.history?.creditHistory(this.deps.network, address.toLowerCase(), sinceMs) ?? []
    return rows
      .filter((r) => r.creditUsdAtoms !== null)
      .map((r) => ({
        timeMs: r.at,
        creditUsd: formatAtoms(BigInt(r.creditUsdAtoms!), USD_DECIMALS),
        availableUsd: r.availableUsdAtoms === null ? null : formatAtoms(BigInt(r.availableUsdAtoms), USD_DECIMALS),
      }))
  }

  private record(
    user: string,
    at: number,
    s: { status: string; credit: bigint; available: bigint | null; lastKnown: bigint | null; level: string; detail: unknown },
  ): void {
    const store = this.deps.history
    if (!store) return
    const key = `${s.status}|${s.credit}|${s.available}|${s.lastKnown}|${s.level}`
    const prev = this.lastSample.get(user)
    if (prev && prev.key === key && at - prev.at < (this.deps.sampleEveryMs ?? 60_000)) return
    store.appendCreditSample(this.deps.network, user, {
      at,
      status: s.status,
      creditUsdAtoms: s.credit.toString(),
      availableUsdAtoms: s.available === null ? null : s.available.toString(),
      lastKnownAvailableUsdAtoms: s.lastKnown === null ? null : s.lastKnown.toString(),
      level: s.level,
      detail: s.detail,
    })
    this.lastSample.set(user, { at, key })
  }
}
