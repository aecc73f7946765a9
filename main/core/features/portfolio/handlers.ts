import type { Address, AssetView, MarketView } from '../../../contract/types'
import type { EventHub } from '../../ipc/events'
import type { HandlerTable } from '../../ipc/dispatch'
import type { SessionSource } from '../../session'
import type { AccountDirectory } from '../accounts'
import type { LiveOverview } from './live-overview'
import type { PortfolioServiceDeps } from './portfolio-for-session'

export type PortfolioChannels = 'markets.list' | 'portfolio.overview' | 'account.detail' | 'stream.status'

export interface PortfolioDeps extends PortfolioServiceDeps {
  sessions: SessionSource
  accounts: AccountDirectory
  live: LiveOverview
  events: EventHub
  now: () => number
}

export function portfolioHandlers(d: PortfolioDeps): Pick<HandlerTable, PortfolioChannels> {
  return {
    'markets.list': async () => {
      const s = await d.sessions.current()
      const [md, markets] = await Promise.all([s.market.get('operator'), s.info.markets({ lane: 'operator' })])
      const assets: AssetView[] = [...md.assets.values()].map((a) => ({
        assetId: a.assetId,
        symbol: a.symbol,
        balanceDecimals: a.decimals,
        creditLtv: a.creditLtv,
      }))
      const sym = (id: number | undefined) => (id === undefined ? '?' : (md.assets.get(id)?.symbol ?? String(id)))
      const views: MarketView[] = markets.markets.map((m) => ({
        marketId: String(m.market_id),
        symbol: m.symbol ?? `${sym(m.base_asset_id)}/${sym(m.quote_asset_id)}`,
        priceDecimals: m.price_decimals,
        baseQuantityDecimals: m.base_quantity_decimals,
        baseAssetId: m.base_asset_id ?? -1,
        quoteAssetId: m.quote_asset_id ?? -1,
        creditTrading: m.credit_trading,
      }))
      return { markets: views, assets }
    },
    'portfolio.overview': () => d.live.request(),
    'stream.status': async () => {
      const s = await d.sessions.current()
      return d.live.streamStatusNow(s)
    },
    'account.detail': async ({ address }) => {
      const s = await d.sessions.current()
      const ref = d.accounts.ref(address) ?? { address: address.toLowerCase() as Address, label: '', group: '', hasKey: false }
      const view = await d.live.accounts.detail(s, ref, 'operator')
      d.events.emit('state.account', view)
      return view
    },
  }
}
