/** The operator's words for assets and markets, as the app's channels take them (ids). */
import type { AssetView, MarketView } from '../../../contract/types'
import { DeskError } from '../../../contract/errors'
import type { CliContext } from '../context'

const lists = new WeakMap<CliContext, Promise<{ markets: MarketView[]; assets: AssetView[] }>>()

/** The selected network's markets and assets, asked once per invocation. */
export function marketsAndAssets(ctx: CliContext): Promise<{ markets: MarketView[]; assets: AssetView[] }> {
  let p = lists.get(ctx)
  if (!p) {
    p = ctx.call('markets.list', undefined)
    lists.set(ctx, p)
  }
  return p
}

/** An asset by id ("1") or symbol ("USDC", case-insensitive), as the services have always taken it. */
export async function assetArg(ctx: CliContext, given: string): Promise<AssetView> {
  const all = (await marketsAndAssets(ctx)).assets
  const s = given.trim()
  const found = /^[0-9]+$/.test(s) ? all.find((a) => a.assetId === Number(s)) : all.find((a) => a.symbol.toLowerCase() === s.toLowerCase())
  if (!found)
    throw new DeskError('UnknownAsset', `no asset "${s}" on this network (known: ${all.map((a) => a.symbol).join(', ')})`, { asset: s })
  return found
}

/** A market by id ("2") or as people name it ("ETH/USDC", "eth-usdc", case-insensitive). */
export async function marketArg(ctx: CliContext, given: string): Promise<MarketView> {
  const { markets, assets } = await marketsAndAssets(ctx)
  const s = given.trim()
  const name = (m: MarketView) => marketName(m, assets)
  const wanted = s.toLowerCase().replace(/[-_ ]/g, '/')
  const found = /^(0|[1-9][0-9]*)$/.test(s)
    ? markets.find((m) => m.marketId === s)
    : markets.find((m) => name(m).toLowerCase() === wanted || m.symbol.toLowerCase() === s.toLowerCase())
  if (!found)
    throw new DeskError('InvalidMarketId', `no market "${s.slice(0, 40)}" on this network (known: ${markets.map(name).join(', ')})`, {
      market: s,
    })
  return found
}

/** A market as people name it: BASE/QUOTE. */
export function marketName(m: MarketView, assets: readonly AssetView[]): string {
  const sym = (id: number) => assets.find((a) => a.assetId === id)?.symbol ?? `#${id}`
  return `${sym(m.baseAssetId)}/${sym(m.quoteAssetId)}`
}
