import type { BalanceView, OverviewRow, OverviewView, ValueAge } from '../../../contract/types'
import { formatAtoms, parseDecimal, parseSignedDecimal } from '../../money/decimal'
import { markState, type MarketData } from '../../session/market-data'
import { USD_DECIMALS, usdAtMark } from '../../session/valuation'

/** An account's balance of one asset, in atoms. */
export interface BalanceAtoms {
  assetId: number
  available: bigint
  locked: bigint
}

/** Streamed balances (display decimals) as atoms; `available` is total less locked when the frame has no split. */
export function liveAtoms(
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

/** One balance valued at mark (no value, never a zero, when the mark is stale or missing). */
export function balanceView(md: MarketData, b: BalanceAtoms, now: () => number): BalanceView {
  const meta = md.assets.get(b.assetId)
  const dec = decimalsOf(md, b.assetId)
  const total = b.available + b.locked
  const ms = markState(md, b.assetId, now())
  const ok = ms.mark !== null && !ms.stale
  return {
    assetId: b.assetId,
    symbol: meta?.symbol ?? `#${b.assetId}`,
    available: formatAtoms(b.available, dec),
    locked: formatAtoms(b.locked, dec),
    total: formatAtoms(total, dec),
    // A stale or missing mark gives no value, never a zero.
    usdValue: ok ? formatAtoms(usdAtMark(total, dec, ms.mark!.usdAtoms), USD_DECIMALS) : null,
    usdReason: ok ? null : markReason(md, b.assetId, now()),
    markAsOf: ms.mark?.sourceTsMs ?? null,
  }
}

/**
 * Totals per asset and in USD over every account, credit accounts included (their positions,
 * shorts negative). Each value carries the age of its oldest input (row fetch or mark) and,
 * when it cannot be computed, why.
 */
export function overviewTotals(md: MarketData, rows: OverviewRow[], now: number): OverviewView {
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

export function decimalsOf(md: MarketData, assetId: number): number {
  // Listed assets use 8 (the spec); an asset the service did not list is read at 8 as well.
  return md.assets.get(assetId)?.decimals ?? 8
}

export function sumUsd(rows: BalanceView[]): { total: string | null; reason: string | null } {
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
