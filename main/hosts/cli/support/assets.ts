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
