import type { AccountView, Address, OverviewRow, OverviewView } from '../../../contract/types'
import type { LastKnownState } from '../../session/last-known'
import type { AccountRef } from '../accounts'
import type { AccountIdentity } from './account-identity'

/** A row that could not be read now: its last known values (if any), stale, with the reason. */
export function failedRow(
  ref: AccountRef,
  e: unknown,
  lastKnown: LastKnownState | undefined,
  id: AccountIdentity | undefined,
): OverviewRow {
  const why = `could not be read: ${e instanceof Error ? e.message : String(e)}`
  const cached = lastKnown
    ?.load<OverviewView>('*', 'overview')
    ?.value.rows.find((r) => r.account.address.toLowerCase() === ref.address.toLowerCase())
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
export function cachedOverview(lk: LastKnownState | undefined, refs: readonly AccountRef[]): OverviewView | null {
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
