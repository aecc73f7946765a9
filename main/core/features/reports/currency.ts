import { DeskError } from '../../errors/desk-error'
import { formatAtoms, mulDivFloor } from '../../money/decimal'
import { markState, USD_DECIMALS, type AssetMeta, type MarketData } from '../../session'
import { isoUtc } from './csv'

/**
 * The currency of an export's value column: USD, or any listed asset with a live mark. The desk
 * keeps no history of marks, so every value is converted at the marks of export time; the rows
 * say which marks (price and time) were used, never a value at the event's time.
 */
export type ReportCurrency =
  | { code: 'USD'; decimals: typeof USD_DECIMALS; asset: null }
  | { code: string; decimals: number; asset: { assetId: number; symbol: string; markUsdAtoms: bigint; markTimeMs: number } }

export const USD: ReportCurrency = { code: 'USD', decimals: USD_DECIMALS, asset: null }

/** A currency the operator may choose now: USD always, an asset while its mark is live. */
export interface CurrencyChoice {
  code: string
  /** USD per unit at the current mark (exact decimal); null for USD itself */
  markUsd: string | null
  markTimeMs: number | null
}

/**
 * Resolves the operator's choice against the current marks. A code that names no listed asset
 * is `InvalidCurrency`; an asset without a live mark (none, stale, oracle down) is
 * `CurrencyUnavailable`: its values could not be stated honestly.
 */
export function resolveCurrency(code: string | undefined, md: MarketData, now: number): ReportCurrency {
  if (code === undefined || code.toUpperCase() === 'USD') return USD
  const asset = [...md.assets.values()].find((a) => a.symbol.toUpperCase() === code.toUpperCase())
  if (!asset)
    throw new DeskError(
      'InvalidCurrency',
      `"${code}" is not a currency the desk can report in: choose USD or a listed asset (${[...md.assets.values()].map((a) => a.symbol).join(', ')}).`,
      { currency: code },
    )
  const st = markState(md, asset.assetId, now)
  if (!st.mark || st.stale || st.mark.usdAtoms <= 0n) {
    const why = !st.mark
      ? 'it has no mark'
      : md.oracle.status !== 'available'
        ? `the oracle is unavailable (${md.oracle.reasonCode ?? 'no reason given'})`
        : `its mark is stale (${Math.round((st.ageMs ?? 0) / 1000)} s old)`
    throw new DeskError(
      'CurrencyUnavailable',
      `Values cannot be stated in ${asset.symbol} now: ${why}. Choose USD or an asset with a live mark.`,
      { currency: asset.symbol },
    )
  }
  return {
    code: asset.symbol,
    decimals: asset.decimals,
    asset: { assetId: asset.assetId, symbol: asset.symbol, markUsdAtoms: st.mark.usdAtoms, markTimeMs: st.mark.sourceTsMs },
  }
}

/** The currencies that resolve now (USD first, then assets with a live mark, by symbol). */
export function currencyChoices(md: MarketData, now: number): CurrencyChoice[] {
  const out: CurrencyChoice[] = [{ code: 'USD', markUsd: null, markTimeMs: null }]
  for (const a of [...md.assets.values()].sort((x, y) => x.symbol.localeCompare(y.symbol))) {
    const st = markState(md, a.assetId, now)
    if (st.mark && !st.stale && st.mark.usdAtoms > 0n)
      out.push({ code: a.symbol, markUsd: formatAtoms(st.mark.usdAtoms, USD_DECIMALS), markTimeMs: st.mark.sourceTsMs })
  }
  return out
}

/**
 * `atoms` (at `scale` decimals) of an asset marked at `fromMarkUsdAtoms` (USD per unit x 10^8),
 * in the currency's atoms: one multiplication and one floor division on bigints, so the only
 * rounding is the final floor to the currency's decimals (never a float, never twice).
 * USD: atoms x mark / 10^scale. An asset C: atoms x mark x 10^decimals(C) / (10^scale x mark(C)).
 */
export function convertAtoms(atoms: bigint, scale: number, fromMarkUsdAtoms: bigint, to: ReportCurrency): bigint {
  if (!Number.isInteger(scale) || scale < 0) throw new RangeError(`scale must be a non-negative integer, got ${scale}`)
  if (to.asset === null) return mulDivFloor(atoms, fromMarkUsdAtoms, 10n ** BigInt(scale))
  return mulDivFloor(atoms * fromMarkUsdAtoms, 10n ** BigInt(to.decimals), 10n ** BigInt(scale) * to.asset.markUsdAtoms)
}

/** The mark of one asset as the rows state it: "BTC 64000.5 USD at 2026-11-25T08:00:00.000Z". */
export function markNote(asset: Pick<AssetMeta, 'symbol'>, usdAtoms: bigint, timeMs: number): string {
  return `${asset.symbol} ${formatAtoms(usdAtoms, USD_DECIMALS)} USD at ${isoUtc(timeMs)}`
}
