import type { NetworkSession } from '../../session'
import { markState, USD_DECIMALS, type AssetMeta } from '../../session'
import { formatAtoms, mulDivFloor } from '../../money/decimal'
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
  /** USD value of `atoms` of an asset at its current mark, or why there is none. */
  usd(assetId: number, atoms: bigint, scale?: number): UsdValue
}

export type UsdValue = { value: string; basis: 'current-mark'; markTimeMs: number } | { value: 'unknown'; basis: 'unknown'; reason: string }

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
  return {
    markets,
    assets: md.assets,
    usd(assetId, atoms, scale) {
      const a = md.assets.get(assetId)
      if (!a) return { value: 'unknown', basis: 'unknown', reason: `asset ${assetId} is not listed` }
      const st = markState(md, assetId, now)
      if (!st.mark) return { value: 'unknown', basis: 'unknown', reason: `no mark for ${a.symbol}` }
      if (md.oracle.status !== 'available') return { value: 'unknown', basis: 'unknown', reason: `oracle unavailable (${md.oracle.reasonCode ?? 'no reason given'})` }
      if (st.stale) return { value: 'unknown', basis: 'unknown', reason: `mark of ${a.symbol} is stale (${Math.round((st.ageMs ?? 0) / 1000)} s old)` }
      const usdAtoms = mulDivFloor(atoms, st.mark.usdAtoms, 10n ** BigInt(scale ?? a.decimals))
      return { value: formatAtoms(usdAtoms, USD_DECIMALS), basis: 'current-mark', markTimeMs: st.mark.sourceTsMs }
    },
  }
}
