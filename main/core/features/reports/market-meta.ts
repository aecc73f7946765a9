import type { NetworkSession } from '../../session'
import { markState, type AssetMeta, type MarketData } from '../../session'
import { formatAtoms } from '../../money/decimal'
import { convertAtoms, markNote, USD, type ReportCurrency } from './currency'
import type { PnlMarket } from './pnl'

export interface MarketMeta extends PnlMarket {
  marketId: number
  symbol: string
  baseSymbol: string
  quoteSymbol: string
}

/** Markets and assets as the reports need them: decimals and symbols, read once per report. */
export interface Catalogue {
  markets: Map<number, MarketMeta>
  assets: Map<number, AssetMeta>
  /** The market data the catalogue was read from (marks, oracle), and when. */
  md: MarketData
  now: number
  /** USD value of `atoms` of an asset at its current mark, or why there is none. */
  usd(assetId: number, atoms: bigint, scale?: number): UsdValue
  /** Value of `atoms` (at `scale`, default the asset's decimals) in `currency`, at the current marks, or why there is none. */
  value(assetId: number, atoms: bigint, currency: ReportCurrency, scale?: number): UsdValue
}

/** `marks` names every mark used (price and time), for the row's note. */
export type UsdValue =
  { value: string; basis: 'current-mark'; markTimeMs: number; marks: string } | { value: 'unknown'; basis: 'unknown'; reason: string }

export async function catalogue(s: NetworkSession): Promise<Catalogue> {
  const [md, mk] = await Promise.all([s.market.get('operator'), s.info.markets({ lane: 'operator' })])
  const markets = new Map<number, MarketMeta>()
  for (const m of mk.markets) {
    if (m.base_asset_id === undefined || m.quote_asset_id === undefined) continue
    const base = md.assets.get(m.base_asset_id)
    const quote = md.assets.get(m.quote_asset_id)
    if (!base || !quote) continue
    markets.set(m.market_id, {
      marketId: m.market_id,
      symbol: m.symbol ?? `${base.symbol}/${quote.symbol}`,
      baseSymbol: base.symbol,
      quoteSymbol: quote.symbol,
      priceDecimals: m.price_decimals,
      quantityDecimals: m.base_quantity_decimals,
      quoteDecimals: quote.decimals,
      baseAssetId: base.assetId,
      quoteAssetId: quote.assetId,
    })
  }
  const now = s.now()
  const value = (assetId: number, atoms: bigint, currency: ReportCurrency, scale?: number): UsdValue => {
    const a = md.assets.get(assetId)
    if (!a) return { value: 'unknown', basis: 'unknown', reason: `asset ${assetId} is not listed` }
    const st = markState(md, assetId, now)
    if (!st.mark) return { value: 'unknown', basis: 'unknown', reason: `no mark for ${a.symbol}` }
    if (md.oracle.status !== 'available')
      return { value: 'unknown', basis: 'unknown', reason: `oracle unavailable (${md.oracle.reasonCode ?? 'no reason given'})` }
    if (st.stale)
      return { value: 'unknown', basis: 'unknown', reason: `mark of ${a.symbol} is stale (${Math.round((st.ageMs ?? 0) / 1000)} s old)` }
    const converted = convertAtoms(atoms, scale ?? a.decimals, st.mark.usdAtoms, currency)
    const marks = [markNote(a, st.mark.usdAtoms, st.mark.sourceTsMs)]
    // the currency's own mark, when it is another asset (resolved once per export, so every row uses the same one)
    if (currency.asset && currency.asset.assetId !== assetId)
      marks.push(markNote(currency.asset, currency.asset.markUsdAtoms, currency.asset.markTimeMs))
    return {
      value: formatAtoms(converted, currency.decimals),
      basis: 'current-mark',
      markTimeMs: st.mark.sourceTsMs,
      marks: marks.join('; '),
    }
  }
  return {
    markets,
    assets: md.assets,
    md,
    now,
    usd: (assetId, atoms, scale) => value(assetId, atoms, USD, scale),
    value,
  }
}
