import type {
  AccountKind,
  AccountView,
  Address,
  BalanceView,
  CreditHealthView,
  OverviewRow,
  OverviewView,
  ValueAge,
} from '../../../contract/types'
import type { InfoClient } from '../../exchange/info/client'
import type { Lane } from '../../exchange/scheduler'
import { formatAtoms, parseDecimal, parseSignedDecimal } from '../../money/decimal'
import type { AccountRef } from '../accounts'
import type { StreamPool } from '../../streams/pool'
import type { CreditHealthService } from '../credit'
import { markState, type MarketData, type MarketDataCache } from '../../session/market-data'
import type { LastKnownState } from '../../session/last-known'
import { USD_DECIMALS, usdAtMark } from '../../session/valuation'

/** How often an account that does not exist yet is asked about again. */
const NONE_RECHECK_MS = 60_000

/** An account as the operator registered it (vault entry plus labels). */

export interface AccountIdentity {
  kind: AccountKind
  status: AccountView['status']
  accountIndex: string | null
}

export interface PortfolioDeps {
  info: InfoClient
  market: MarketDataCache
  credit: CreditHealthService
  pool?: StreamPool
  lastKnown?: LastKnownState
  /** unresolved journal entries of an account (H4's journal), for the overview */
  pendingJournal?: (address: string) => number
  now?: () => number
  /** live socket state older than this is refetched through /info (default 30 s) */
  liveMaxAgeMs?: number
}

interface BalanceAtoms {
  assetId: number
  available: bigint
  locked: bigint
}

/** Streamed balances (display decimals) as atoms; `available` is total less locked when the frame has no split. */
function liveAtoms(
  md: MarketData,
  live: readonly { assetId: number; available: string | null; total?: string | null; locked: string }[],
): BalanceAtoms[] {
  return live.map((b) => {
    const dec = decimalsOf(md, b.assetId)
    const locked = parseDecimal(b.locked, dec)
    if (b.available !== null) return { assetId: b.assetId, available: parseDecimal(b.available, dec), locked }
    return { assetId: b.assetId, available: parseDecimal(b.total ?? '0', dec) - locked, locked }
  })
}

/**
 * Portfolio per account and in total: balances (available, locked) valued at mark, credit
 * lines through the credit-health service, with the staleness of marks and the oracle status.
 * Live socket state is used when the pool has it; /info fills the gaps within the budget.
 * Every row is saved as last-known state so the next start shows it at once, with its age.
 */
export class PortfolioService {
  private readonly now: () => number
  private readonly identities = new Map<string, AccountIdentity>()
  private readonly identityAt = new Map<string, number>()

  constructor(private readonly deps: PortfolioDeps) {
    this.now = deps.now ?? Date.now
  }

  /** Type, status and account index from the service (cached: they rarely change). */
  async identity(address: string, lane: Lane = 'background', refresh = false): Promise<AccountIdentity> {
    const user = address.toLowerCase()
    const cached = this.identities.get(user)
    // An account that does not exist is not streamed: its status is read again at most once a
    // minute (an activation from elsewhere shows up, and the write path refreshes it at once).
    if (cached && cached.status === 'none' && !refresh && this.now() - (this.identityAt.get(user) ?? 0) >= NONE_RECHECK_MS)
      return this.identity(user, lane, true).catch(() => cached)
    if (cached && !refresh) return cached
    const live = !refresh ? this.fromStream(user) : null
    if (live) {
      // The socket already tells credit from balance-mode; the account index and a balance
      // account's status come from /info later, in the background lane, without holding the row.
      this.identities.set(user, live)
      void this.identity(user, 'background', true).catch(() => this.identities.set(user, live))
      return live
    }
    const known = !refresh ? this.deps.lastKnown?.load<AccountIdentity>(user, 'status') : null
    if (known && (known.value.kind !== 'unknown' || known.value.status === 'none')) {
      // Known from an earlier run (kind and status rarely change): the row is not held for it;
      // it is re-read once in the background (an account that did not exist is polled anyway).
      this.identities.set(user, known.value)
      void this.identity(user, 'background', true).catch(() => {})
      return known.value
    }
    const st = await this.deps.info.accountStatus({ user }, { lane })
    let kind: AccountKind = st.account_type ?? 'unknown'
    if (kind === 'unknown' && st.found) {
      const ca = await this.deps.info.spotCreditAccount({ user }, { lane })
      kind = ca.found === false || ca.status == null ? 'balance' : 'credit'
    }
    const id: AccountIdentity = {
      kind,
      status: st.found ? (st.status ?? 'unknown') : 'none',
      accountIndex: st.account_index === null ? null : st.account_index.toString(),
    }
    this.identities.set(user, id)
    this.identityAt.set(user, this.now())
    this.deps.lastKnown?.save(user, 'status', id)
    return id
  }

  private fromStream(user: string): AccountIdentity | null {
    const st = this.deps.pool?.state(user)
    if (!st) return null
    if (st.credit?.value.authorized) return { kind: 'credit', status: st.credit.value.status ?? 'unknown', accountIndex: null }
    // A credit account has an empty balance list, so held balances mean balance-mode.
    if (st.balances && st.balances.value.length > 0) return { kind: 'balance', status: 'unknown', accountIndex: null }
    return null
  }

  /** Balances of a balance-mode account valued at mark; empty for a credit account. */
  async balances(
    address: string,
    lane: Lane = 'operator',
  ): Promise<{ rows: BalanceView[]; fetchedAt: number; source: 'stream' | 'info' | 'cache' }> {
    const user = address.toLowerCase()
    const md = await this.deps.market.recent(lane)
    const live = this.deps.pool?.state(user).balances
    let atoms: BalanceAtoms[]
    let fetchedAt: number
    let source: 'stream' | 'info' | 'cache'
    // Live state is current while its channel streams (quiet accounts push nothing); otherwise it
    // is trusted for `liveMaxAgeMs` and then re-read through /info.
    // Strict limits: an account that does not stream is refreshed through /info in turn by the
    // pool (most due first); its state is shown with its age, whatever it is, and a view never
    // waits for a read of its own (at 200 accounts, 197 reads: minutes at 1 request/s, and no
    // balance frame could reach the screen meanwhile). Before its first refresh, the last known
    // balances stand in, with their age.
    const polled = this.deps.pool?.strict === true && lane !== 'write'
    const known = polled && !live ? this.deps.lastKnown?.load<BalanceView[]>(user, 'balances') : null
    if (live && (polled || this.deps.pool!.usable(user, 'spotState', live.at, this.deps.liveMaxAgeMs))) {
      atoms = liveAtoms(md, live.value)
      // Streaming state is as of now; a merely recent one (a frame before a reconnect, or a
      // strict-mode /info refresh) is as of its last update, and is not called live.
      const streaming = this.deps.pool!.isLive(user, 'spotState', live.at)
      fetchedAt = streaming ? this.now() : live.at
      source = streaming ? 'stream' : 'info'
    } else if (known && Array.isArray(known.value)) {
      atoms = known.value.map((b) => {
        const dec = decimalsOf(md, b.assetId)
        return { assetId: b.assetId, available: parseDecimal(b.available, dec), locked: parseDecimal(b.locked, dec) }
      })
      // Valued at today's marks; as of when it was read.
      const rows = atoms.map((b) => this.balanceView(md, b))
      return { rows, fetchedAt: known.fetchedAt, source: 'cache' }
    } else {
      const rows = await this.deps.info.userBalances({ user }, { lane })
      atoms = rows.map((r) => {
        const dec = decimalsOf(md, r.asset_id)
        return {
          assetId: r.asset_id,
          available: r.available_atoms ?? parseDecimal(r.available, dec),
          locked: r.locked_atoms ?? parseDecimal(r.locked, dec),
        }
      })
      fetchedAt = this.now()
      source = 'info'
    }
    const rows = atoms.map((b) => this.balanceView(md, b))
    this.deps.lastKnown?.save(user, 'balances', rows, fetchedAt)
    return { rows, fetchedAt, source }
  }

  /** One overview row: balances or credit line, totals at mark, and when it was fetched. */
  async row(ref: AccountRef, lane: Lane = 'background'): Promise<{ row: OverviewRow; credit: CreditHealthView | null }> {
    const id = await this.identity(ref.address, lane)
    const account: AccountView = {
      address: ref.address.toLowerCase() as Address,
      label: ref.label,
      group: ref.group,
      hasKey: ref.hasKey,
      kind: id.kind,
      status: id.status,
      accountIndex: id.accountIndex,
    }
    const agents = this.deps.lastKnown?.load<{ agent: string | null }[]>(ref.address, 'agents')
    const agentsInUse = agents ? agents.value.filter((s) => s.agent !== null).length : 0
    const pendingJournal = this.deps.pendingJournal?.(ref.address) ?? 0
    if (id.kind === 'credit') {
      const md = await this.deps.market.recent(lane)
      const liveCredit = this.deps.pool?.state(ref.address).credit
      // Streams first: the credit frame carries the line and positions; /info only without it.
      // Strict limits: a polled credit line is shown with its age, as polled balances are (see `balances`).
      const fromLive = this.deps.credit.healthLive(
        ref.address,
        md,
        this.deps.pool?.strict === true && lane !== 'write' ? Infinity : undefined,
      )
      const credit = fromLive === undefined ? await this.deps.credit.health(ref.address, lane) : fromLive
      const positions = this.creditHoldings(md, ref.address, credit)
      const value = sumUsd(positions)
      const row: OverviewRow = {
        account,
        totalUsd: value.total,
        totalUsdReason: value.reason,
        available: positions,
        credit: credit ? { creditUsd: credit.creditUsd, availableUsd: credit.availableUsd, warning: credit.warning } : null,
        creditReason: credit ? (credit.availableReason ?? null) : 'no credit line found',
        agentsInUse,
        pendingJournal,
        fetchedAt: fromLive !== undefined && liveCredit ? this.liveAt(ref.address, 'spotCreditState', liveCredit.at) : this.now(),
        stale: credit ? credit.marksStale : false,
        source:
          fromLive !== undefined && liveCredit && this.deps.pool!.isLive(ref.address, 'spotCreditState', liveCredit.at) ? 'live' : 'info',
      }
      return { row, credit }
    }
    const b = id.status === 'none' ? { rows: [], fetchedAt: this.now(), source: 'info' as const } : await this.balances(ref.address, lane)
    const total = sumUsd(b.rows)
    const row: OverviewRow = {
      account,
      totalUsd: total.total,
      totalUsdReason: total.reason,
      source: b.source === 'stream' ? 'live' : b.source,
      available: b.rows,
      credit: null,
      agentsInUse,
      pendingJournal,
      fetchedAt: b.fetchedAt,
      stale: b.source === 'cache' || b.rows.some((r) => r.usdValue === null && r.total !== '0'),
    }
    return { row, credit: null }
  }

  /**
   * The overview with the rows of `users` recomputed from streaming balances and the cached
   * marks, without any request: how a balance frame reaches the screen at once. Null when that
   * is not possible (no cached marks, a credit row, no live balances); then a full refresh runs.
   */
  patchOverview(view: OverviewView, users: ReadonlySet<string>): OverviewView | null {
    const md = this.deps.market.peek()
    const pool = this.deps.pool
    if (!md || !pool) return null
    const rows: OverviewRow[] = []
    for (const r of view.rows) {
      const user = r.account.address.toLowerCase()
      if (!users.has(user)) {
        rows.push(r)
        continue
      }
      const live = pool.state(user).balances
      if (r.account.kind !== 'balance' || !live) return null
      const balances = liveAtoms(md, live.value).map((b) => this.balanceView(md, b))
      const t = sumUsd(balances)
      rows.push({
        ...r,
        available: balances,
        totalUsd: t.total,
        totalUsdReason: t.reason,
        source: 'live',
        fetchedAt: this.now(),
        stale: balances.some((x) => x.usdValue === null && x.total !== '0'),
      })
      this.deps.lastKnown?.save(user, 'balances', balances, this.now())
    }
    return this.totals(md, rows)
  }

  /** Every account and the totals per asset and in USD (null when any held asset lacks a fresh mark). */
  async overview(refs: readonly AccountRef[], lane: Lane = 'background'): Promise<OverviewView> {
    const md = await this.deps.market.get(lane)
    // One account failing to read must not drop the others: its row shows its last known
    // values (when any) and why it is not current.
    const settled = await Promise.allSettled(refs.map(async (r) => (await this.row(r, lane)).row))
    const rows = settled.map((r, i) => (r.status === 'fulfilled' ? r.value : this.failedRow(refs[i]!, r.reason)))
    const view = this.totals(md, rows)
    this.deps.lastKnown?.save('*', 'overview', view, view.asOf)
    return view
  }

  /** A row that could not be read now: its last known values (if any), stale, with the reason. */
  private failedRow(ref: AccountRef, e: unknown): OverviewRow {
    const why = `could not be read: ${e instanceof Error ? e.message : String(e)}`
    const cached = this.deps.lastKnown
      ?.load<OverviewView>('*', 'overview')
      ?.value.rows.find((r) => r.account.address.toLowerCase() === ref.address.toLowerCase())
    const id = this.identities.get(ref.address.toLowerCase())
    const account: AccountView = {
      address: ref.address.toLowerCase() as Address,
      label: ref.label,
      group: ref.group,
      hasKey: ref.hasKey,
      kind: id?.kind ?? cached?.account.kind ?? 'unknown',
      status: id?.status ?? cached?.account.status ?? 'unknown',
      accountIndex: id?.accountIndex ?? cached?.account.accountIndex ?? null,
    }
    if (cached)
      return {
        ...cached,
        account,
        totalUsd: null,
        totalUsdReason: why,
        stale: true,
        source: 'cache',
        readError: why,
        ...(cached.credit ? { creditReason: why } : {}),
      }
    return {
      account,
      totalUsd: null,
      totalUsdReason: why,
      available: [],
      credit: null,
      agentsInUse: 0,
      pendingJournal: 0,
      fetchedAt: null,
      stale: true,
      source: 'cache',
      readError: why,
    }
  }

  /**
   * The overview from last-known state only (no network): what the dashboard shows at start.
   * Rows carry their own fetch time and are marked stale.
   */
  cachedOverview(refs: readonly AccountRef[]): OverviewView | null {
    const lk = this.deps.lastKnown
    if (!lk) return null
    const cached = lk.load<OverviewView>('*', 'overview')
    const byAddr = new Map((cached?.value.rows ?? []).map((r) => [r.account.address.toLowerCase(), r]))
    const rows: OverviewRow[] = refs.map((ref) => {
      const r = byAddr.get(ref.address.toLowerCase())
      const account: AccountView = {
        address: ref.address.toLowerCase() as Address,
        label: ref.label,
        group: ref.group,
        hasKey: ref.hasKey,
        kind: r?.account.kind ?? 'unknown',
        status: r?.account.status ?? 'unknown',
        accountIndex: r?.account.accountIndex ?? null,
      }
      return r
        ? { ...r, account, stale: true, source: 'cache' as const }
        : {
            account,
            totalUsd: null,
            totalUsdReason: 'not read yet',
            available: [],
            credit: null,
            agentsInUse: 0,
            pendingJournal: 0,
            fetchedAt: null,
            stale: true,
            source: 'cache' as const,
          }
    })
    const v = cached?.value
    return {
      rows,
      totals: v?.totals ?? [],
      totalUsd: v?.totalUsd ?? null,
      ...(v?.totalsAge ? { totalsAge: v.totalsAge } : {}),
      totalUsdAge: {
        asOf: v?.totalUsdAge?.asOf ?? cached?.fetchedAt ?? null,
        reason: v ? (v.totalUsdAge?.reason ?? null) : 'nothing cached from an earlier run',
      },
      // Older than any fresh view, so a fresh push always replaces it.
      asOf: cached?.fetchedAt ?? 0,
      source: 'cache',
    }
  }

  private balanceView(md: MarketData, b: BalanceAtoms): BalanceView {
    const meta = md.assets.get(b.assetId)
    const dec = decimalsOf(md, b.assetId)
    const total = b.available + b.locked
    const ms = markState(md, b.assetId, this.now())
    const ok = ms.mark !== null && !ms.stale
    return {
      assetId: b.assetId,
      symbol: meta?.symbol ?? `#${b.assetId}`,
      available: formatAtoms(b.available, dec),
      locked: formatAtoms(b.locked, dec),
      total: formatAtoms(total, dec),
      // A stale or missing mark gives no value, never a zero.
      usdValue: ok ? formatAtoms(usdAtMark(total, dec, ms.mark!.usdAtoms), USD_DECIMALS) : null,
      usdReason: ok ? null : markReason(md, b.assetId, this.now()),
      markAsOf: ms.mark?.sourceTsMs ?? null,
    }
  }

  /**
   * A credit account's holdings as balance rows, so "All assets" and the USD total include
   * them: `total` is the settled position (negative is short), `locked` what resting orders
   * hold (pending exposure), `available` the rest.
   */
  private creditHoldings(md: MarketData, address: string, credit: CreditHealthView | null): BalanceView[] {
    const live = this.deps.pool?.state(address).credit?.value
    const positions = live?.authorized
      ? live.positions.map((p) => ({ assetId: p.asset_id, actual: p.actual_qty, pending: p.pending_exposure_qty }))
      : (credit?.positions ?? []).map((p) => {
          const dec = decimalsOf(md, p.assetId)
          return { assetId: p.assetId, actual: parseSignedDecimal(p.actual, dec), pending: parseSignedDecimal(p.pendingExposure, dec) }
        })
    return positions
      .filter((p) => p.actual !== 0n || p.pending !== 0n)
      .map((p) => {
        const view = this.balanceView(md, { assetId: p.assetId, available: p.actual + p.pending, locked: -p.pending })
        return view
      })
  }

  /** Streaming state is as of now; a merely recent one is as of its last frame. */
  private liveAt(user: string, channel: 'spotState' | 'spotCreditState', at: number): number {
    return this.deps.pool?.isLive(user, channel, at) ? this.now() : at
  }

  /**
   * Totals per asset and in USD over every account, credit accounts included (their positions,
   * shorts negative). Each value carries the age of its oldest input (row fetch or mark) and,
   * when it cannot be computed, why.
   */
  private totals(md: MarketData, rows: OverviewRow[]): OverviewView {
    const perAsset = new Map<number, { atoms: bigint; asOf: number | null }>()
    const older = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.min(a, b))
    let rowsAsOf: number | null = Number.POSITIVE_INFINITY
    const missing: string[] = []
    for (const r of rows) {
      rowsAsOf = older(rowsAsOf, r.fetchedAt)
      if (r.readError) missing.push(`${r.account.label || r.account.address} ${r.readError}`)
      else if (r.fetchedAt === null && r.account.status !== 'none') missing.push(`${r.account.label || r.account.address} not read yet`)
      for (const b of r.available) {
        const prev = perAsset.get(b.assetId)
        perAsset.set(b.assetId, {
          atoms: (prev?.atoms ?? 0n) + parseSignedDecimal(b.total, decimalsOf(md, b.assetId)),
          asOf: prev ? older(prev.asOf, r.fetchedAt) : r.fetchedAt,
        })
      }
    }
    const now = this.now()
    let totalUsd: bigint | null = 0n
    let reason: string | null = missing[0] ?? null
    let totalAsOf: number | null = rowsAsOf === Number.POSITIVE_INFINITY ? now : rowsAsOf
    const totalsAge: Record<string, ValueAge> = {}
    const totals = [...perAsset]
      .sort((a, b) => a[0] - b[0])
      .map(([assetId, { atoms, asOf }]) => {
        const dec = decimalsOf(md, assetId)
        const ms = markState(md, assetId, now)
        const v = ms.mark && !ms.stale ? usdAtMark(atoms, dec, ms.mark.usdAtoms) : null
        const why = v === null ? markReason(md, assetId, now) : null
        const age = { asOf: older(asOf, ms.mark?.sourceTsMs ?? null), reason: why }
        totalsAge[String(assetId)] = age
        if (v === null) {
          if (atoms !== 0n) {
            totalUsd = null
            reason ??= why
          }
        } else {
          if (totalUsd !== null) totalUsd += v
          totalAsOf = older(totalAsOf, ms.mark!.sourceTsMs)
        }
        return {
          assetId,
          symbol: md.assets.get(assetId)?.symbol ?? `#${assetId}`,
          total: formatAtoms(atoms, dec),
          usdValue: v === null ? null : formatAtoms(v, USD_DECIMALS),
        }
      })
    if (missing.length > 0) totalUsd = null
    return {
      rows,
      totals,
      totalsAge,
      totalUsd: totalUsd === null ? null : formatAtoms(totalUsd, USD_DECIMALS),
      totalUsdAge: { asOf: totalAsOf, reason: totalUsd === null ? (reason ?? 'not computed') : null },
      asOf: now,
      source: 'live',
    }
  }
}

function decimalsOf(md: MarketData, assetId: number): number {
  // Listed assets use 8 (the spec); an asset the service did not list is read at 8 as well.
  return md.assets.get(assetId)?.decimals ?? 8
}

function sumUsd(rows: BalanceView[]): { total: string | null; reason: string | null } {
  let t = 0n
  for (const r of rows) {
    if (r.usdValue === null) {
      if (r.total !== '0') return { total: null, reason: r.usdReason ?? `no USD value for ${r.symbol}` }
      continue
    }
    t += parseSignedDecimal(r.usdValue, USD_DECIMALS)
  }
  return { total: formatAtoms(t, USD_DECIMALS), reason: null }
}

/** Wall-clock time for reasons shown to the operator (UTC, to the second). */
export function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`
}

/** Why an asset has no USD value now, or null when its mark is fresh. */
export function markReason(md: MarketData, assetId: number, now: number): string | null {
  const sym = md.assets.get(assetId)?.symbol ?? `#${assetId}`
  if (md.oracle.status !== 'available') return `oracle unavailable (${md.oracle.reasonCode ?? 'no reason given'}): no USD value for ${sym}`
  const m = md.marks.get(assetId)
  if (!m) return `no mark for ${sym}`
  if (now - m.sourceTsMs > md.markStaleAfterMs) return `mark for ${sym} stale since ${clockTime(m.sourceTsMs + md.markStaleAfterMs)}`
  return null
}
