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

/** How often an account that does not exist yet is asked about again (when its balances are not polled). */
const NONE_RECHECK_MS = 60_000
/**
 * An identity read in an earlier run is read again at a start only once it is this old: kind and
 * status change rarely (a session never re-reads them but after a write), and re-reading every
 * account at each start cost a read per account at 1 /info per second, ahead of their balances.
 */
export const IDENTITY_RECHECK_MS = 3_600_000

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
  /** When each identity was read (from the service; an earlier run's for one loaded from the cache). */
  private readonly identityAt = new Map<string, number>()
  private readonly rereading = new Map<string, Promise<unknown>>()
  private readonly identityListeners = new Set<(user: string) => void>()

  constructor(private readonly deps: PortfolioDeps) {
    this.now = deps.now ?? Date.now
  }

  /**
   * Type, status and account index (cached: they rarely change). A row never waits for a read
   * when the kind is known from anywhere (an earlier run's read, the stream, the overview shown
   * last): at 1 /info per second a read per account at a start held the budget, and every balance
   * behind it, for a minute at 50 accounts. Only what is not known or has aged past
   * `IDENTITY_RECHECK_MS` is re-read, in the background lane.
   */
  async identity(address: string, lane: Lane = 'background', refresh = false): Promise<AccountIdentity> {
    const user = address.toLowerCase()
    if (refresh) return this.readIdentity(user, lane)
    const cached = this.identities.get(user)
    if (cached) {
      if (cached.status === 'none') this.recheckMissing(user)
      return cached
    }
    const known = this.deps.lastKnown?.load<AccountIdentity>(user, 'status')
    if (known && (known.value.kind !== 'unknown' || known.value.status === 'none')) {
      // Read in an earlier run: shown at once; read again only once it is old (an account that
      // does not exist is checked again by `recheckMissing`).
      this.identities.set(user, known.value)
      this.identityAt.set(user, known.fetchedAt)
      // An account that did not exist then is asked about again at once (its row is as old as
      // that answer), unless the pool refreshes its balances (strict limits).
      if (known.value.status === 'none') {
        if (this.deps.pool?.strict === true) this.recheckMissing(user)
        else this.rereadIdentity(user)
      } else if (known.value.status === 'unknown' || this.now() - known.fetchedAt >= IDENTITY_RECHECK_MS) this.rereadIdentity(user)
      return known.value
    }
    // Never read (or its read did not finish before the last run closed): the kind from the
    // socket or from the overview shown last; the status comes from one background read.
    const seen = this.fromStream(user) ?? this.shownIdentity(user)
    if (seen) {
      this.identities.set(user, seen.id)
      if (seen.at !== null) this.identityAt.set(user, seen.at)
      this.rereadIdentity(user)
      return seen.id
    }
    return this.readIdentity(user, lane)
  }

  /** One /info read of an account's identity (remembered, and saved for the next start). */
  private async readIdentity(user: string, lane: Lane): Promise<AccountIdentity> {
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

  /** A background re-read, one per account at a time; its listeners (the live overview) push its answer. */
  private rereadIdentity(user: string): void {
    if (this.rereading.has(user)) return
    const p = this.readIdentity(user, 'background')
      .then(() => {
        for (const l of this.identityListeners) l(user)
      })
      .catch(() => null)
      .finally(() => this.rereading.delete(user))
    this.rereading.set(user, p)
  }

  /** Called after each background identity read (nobody waits for those: the overview pushes again). */
  onIdentityRead(listener: (user: string) => void): () => void {
    this.identityListeners.add(listener)
    return () => this.identityListeners.delete(listener)
  }

  /**
   * An account that does not exist is not waited for either. Its balances stream (strict limits:
   * the pool refreshes them in turn like any polled account's; see `streamTargetsOf`), so its first
   * deposit shows there and its identity is read again then. Its status is also read again at
   * most once a minute (the write path refreshes it at once).
   */
  private recheckMissing(user: string): void {
    const polled = this.deps.pool?.state(user).balances
    const at = this.identityAt.get(user) ?? 0
    if (polled && polled.at > at) {
      if (polled.value.length > 0) this.rereadIdentity(user)
      return
    }
    if (this.now() - at >= NONE_RECHECK_MS) this.rereadIdentity(user)
  }

  /** The kind, status and index the overview showed last (an earlier run's cache), when it knew the kind. */
  private shownIdentity(user: string): { id: AccountIdentity; at: number | null } | null {
    const row = this.deps.lastKnown?.load<OverviewView>('*', 'overview')?.value.rows?.find((r) => r.account.address.toLowerCase() === user)
    if (!row || (row.account.kind === 'unknown' && row.account.status !== 'none')) return null
    return { id: { kind: row.account.kind, status: row.account.status, accountIndex: row.account.accountIndex }, at: row.fetchedAt }
  }

  private fromStream(user: string): { id: AccountIdentity; at: null } | null {
    const st = this.deps.pool?.state(user)
    if (!st) return null
    if (st.credit?.value.authorized)
      return { id: { kind: 'credit', status: st.credit.value.status ?? 'unknown', accountIndex: null }, at: null }
    // A credit account has an empty balance list, so held balances mean balance-mode.
    if (st.balances && st.balances.value.length > 0) return { id: { kind: 'balance', status: 'unknown', accountIndex: null }, at: null }
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

  /**
   * The balances of an account that does not exist: none, as of the later of its status read and
   * the pool's last read of its balances (strict limits poll it), not as of now: a row must not
   * look current when nothing about it was read. Funds found there (its first deposit) are shown
   * while its identity is read again (see `recheckMissing`).
   */
  private async missingBalances(
    address: string,
    lane: Lane,
  ): Promise<{ rows: BalanceView[]; fetchedAt: number; source: 'stream' | 'info' | 'cache' }> {
    const user = address.toLowerCase()
    const polled = this.deps.pool?.state(user).balances
    if (polled && polled.value.length > 0) return this.balances(user, lane)
    // Its balance channel streams (no strict limits): "no funds" is live, as of now.
    if (polled && this.deps.pool!.isLive(user, 'spotState', polled.at)) return { rows: [], fetchedAt: this.now(), source: 'stream' }
    return { rows: [], fetchedAt: Math.max(this.identityAt.get(user) ?? 0, polled?.at ?? 0), source: 'info' }
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
      const polled = this.deps.pool?.strict === true && lane !== 'write'
      const fromLive = this.deps.credit.healthLive(ref.address, md, polled ? Infinity : undefined)
      // Strict limits, before the pool's first refresh: the last known line, with its age, as for
      // balances; a push waiting on a read of its own sat behind a start's background reads for minutes.
      const known = polled && fromLive === undefined ? this.deps.lastKnown?.load<CreditHealthView>(ref.address, 'credit') : null
      const credit = fromLive !== undefined ? fromLive : known ? known.value : await this.deps.credit.health(ref.address, lane)
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
        fetchedAt:
          fromLive !== undefined && liveCredit
            ? this.liveAt(ref.address, 'spotCreditState', liveCredit.at)
            : known
              ? known.fetchedAt
              : this.now(),
        stale: known ? true : credit ? credit.marksStale : false,
        source:
          fromLive !== undefined && liveCredit && this.deps.pool!.isLive(ref.address, 'spotCreditState', liveCredit.at)
            ? 'live'
            : known
              ? 'cache'
              : 'info',
      }
      return { row, credit }
    }
    const b = id.status === 'none' ? await this.missingBalances(ref.address, lane) : await this.balances(ref.address, lane)
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
      // A frame is as of now; a strict-mode /info refresh as of its read, and is not called live.
      const streaming = pool.isLive(user, 'spotState', live.at)
      const fetchedAt = streaming ? this.now() : live.at
      rows.push({
        ...r,
        available: balances,
        totalUsd: t.total,
        totalUsdReason: t.reason,
        source: streaming ? 'live' : 'info',
        fetchedAt,
        stale: balances.some((x) => x.usdValue === null && x.total !== '0'),
      })
      this.deps.lastKnown?.save(user, 'balances', balances, fetchedAt)
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
