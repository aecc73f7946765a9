/** `desk markets`, `desk assets`: what the selected network lists, with the precision each allows. */
import { formatPercent } from '../../../contract/format'
import type { Command, CommandGroup } from '../router'

const marketList: Command = {
  name: 'list',
  summary: 'markets of the selected network: id, symbol, price and size precision, credit trading',
  async run(ctx) {
    const r = await ctx.call('markets.list', undefined)
    ctx.print(
      [
        `${'ID'.padEnd(6)}${'MARKET'.padEnd(14)}${'PRICE DP'.padEnd(10)}${'SIZE DP'.padEnd(9)}CREDIT`,
        ...r.markets.map(
          (m) =>
            `${m.marketId.padEnd(6)}${m.symbol.padEnd(14)}${String(m.priceDecimals).padEnd(10)}` +
            `${String(m.baseQuantityDecimals).padEnd(9)}${m.creditTrading ? 'yes' : 'no'}`,
        ),
      ],
      r.markets,
    )
  },
}

const assetList: Command = {
  name: 'list',
  summary: 'assets of the selected network: id, symbol, balance decimals, credit LTV weight',
  async run(ctx) {
    const r = await ctx.call('markets.list', undefined)
    ctx.print(
      [
        `${'ID'.padEnd(6)}${'ASSET'.padEnd(10)}${'DECIMALS'.padEnd(10)}LTV WEIGHT`,
        ...r.assets.map(
          (a) =>
            `${String(a.assetId).padEnd(6)}${a.symbol.padEnd(10)}${String(a.balanceDecimals).padEnd(10)}${formatPercent(String(a.creditLtv))}`,
        ),
      ],
      r.assets,
    )
  },
}

const markets: CommandGroup = {
  name: 'markets',
  summary: 'markets of the selected network',
  commands: [marketList],
  defaultCommand: 'list',
}
export default markets
export const assets: CommandGroup = {
  name: 'assets',
  summary: 'assets of the selected network',
  commands: [assetList],
  defaultCommand: 'list',
}
