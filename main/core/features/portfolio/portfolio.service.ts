import type { AccountView, Address, BalanceView, CreditHealthView, OverviewRow, OverviewView } from '../../../contract/types'
import type { InfoClient } from '../../exchange/info/client'
import type { Lane } from '../../exchange/scheduler'
import { parseDecimal, parseSignedDecimal } from '../../money/decimal'
import type { AccountRef } from '../accounts'
import type { StreamPool } from '../../streams/pool'
import type { CreditHealthService } from '../credit'
import type { MarketData, MarketDataCache } from '../../session/market-data'
import type { LastKnownState } from '../../session/last-known'
import { AccountIdentities, type AccountIdentity } from './account-identity'
import { cachedOverview, failedRow } from './cached-rows'
import { balanceView, decimalsOf, liveAtoms, overviewTotals, sumUsd, type BalanceAtoms } from './valuation'

export { IDENTITY_RECHECK_MS, type AccountIdentity } from './account-identity'
export { clockTime, markReason } from './valuation'

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

/**
 * Portfolio per account and in total: balances (available, locked) valued at mark, credit
 * lines through the credit-health service, with the staleness of marks and the oracle status.
 * Live socket state is used when the pool has it; /info fills the gaps within the budget.
 * Every row is saved as last-known state so the next start shows it at once, with its age.
 */
export class PortfolioService {
  private readonly now: () => number
  private readonly ids: AccountIdentities

  constructor(private readonly deps: PortfolioDeps) {
    this.now = deps.now ?? Date.now
    this.ids = new AccountIdentities({ info: deps.info, pool: deps.pool, lastKnown: deps.lastKnown, now: this.now })
  }

  /** Type, status and account index (see `AccountIdentities.identity`). */
  identity(address: string, lane: Lane = 'background', refresh = false): Promise<AccountIdentity> {
    return this.ids.identity(address, lane, refresh)
  }

  /** Called after each background identity read (nobody waits for those: the overview pushes again). */
  onIdentityRead(listener: (user: string) => void): () => void {
    return this.ids.onIdentityRead(listener)
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
    return { rows: [], fetchedAt: Math.max(this.ids.readAt(user) ?? 0, polled?.at ?? 0), source: 'info' }
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
    return failedRow(ref, e, this.deps.lastKnown, this.ids.known(ref.address.toLowerCase()))
  }

  /**
   * The overview from last-known state only (no network): what the dashboard shows at start.
   * Rows carry their own fetch time and are marked stale.
   */
  cachedOverview(refs: readonly AccountRef[]): OverviewView | null {
    return cachedOverview(this.deps.lastKnown, refs)
  }

  private balanceView(md: MarketData, b: BalanceAtoms): BalanceView {
    return balanceView(md, b, this.now)
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

  private totals(md: MarketData, rows: OverviewRow[]): OverviewView {
    return overviewTotals(md, rows, this.now())
  }
}
