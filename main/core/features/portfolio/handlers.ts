import type { Address, AssetView, FillView, MarketView, OpenOrderView } from '../../../contract/types'
import type { EventHub } from '../../ipc/events'
import type { HandlerTable } from '../../ipc/dispatch'
import type { SessionSource } from '../../session'
import type { AccountDirectory } from '../accounts'
import type { LiveOverview } from './live-overview'
import { portfolioFor, type PortfolioServiceDeps } from './portfolio-for-session'

export type PortfolioChannels = 'markets.list' | 'portfolio.overview' | 'account.detail'

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
      const assets: AssetView[] = [...md.assets.values()].map((a) => ({ assetId: a.assetId, symbol: a.symbol, balanceDecimals: a.decimals, creditLtv: a.creditLtv }))
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
    'portfolio.overview': () => d.live.overview('operator'),
    'account.detail': async ({ address }) => {
      const s = await d.sessions.current()
      const portfolio = portfolioFor(s, d)
      const ref = d.accounts.ref(address) ?? { address: address.toLowerCase() as Address, label: '', group: '', hasKey: false }
      const { row, credit } = await portfolio.row(ref, 'operator')
      d.accounts.remember(ref.address, row.account)
      const balances = await portfolio.balances(ref.address, 'operator')
      const oo = await s.info.openOrders({ user: ref.address, market_id: -1 }, { lane: 'operator' })
      const fills = await s.info.userFillsByTime({ user: ref.address, start_time_ms: Math.max(0, d.now() - 24 * 3600_000) }, { lane: 'operator' })
      const openOrders: OpenOrderView[] = oo.orders.map((o) => ({
        marketId: String(o.market_id ?? ''),
        oid: String(o.oid),
        cloid: o.cloid ?? null,
        side: o.side === 'ask' || o.side === 'A' ? 'ask' : 'bid',
        price: o.price ?? '',
        originalQty: o.original_qty,
        remainingQty: o.remaining_qty,
        filledQty: o.filled_qty,
        timeMs: o.timestamp_ms ?? null,
      }))
      const fillViews: FillView[] = fills.fills
        .slice(-200)
        .reverse()
        .map((f) => ({
          tid: String(f.tid),
          marketId: String(f.market_id ?? f.coin ?? ''),
          side: f.side,
          price: f.price ?? f.px ?? '',
          size: f.quantity ?? f.sz ?? '',
          fee: f.fee,
          feeAssetId: f.fee_asset_id,
          timeMs: f.time,
          oid: f.oid === null || f.oid === undefined ? null : String(f.oid),
          cloid: f.cloid ?? null,
        }))
      const view = { account: row.account, balances: balances.rows, credit, openOrders, fills: fillViews, fetchedAt: balances.fetchedAt }
      d.events.emit('state.account', view)
      return view
    },
  }
}
