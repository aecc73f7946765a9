/** `desk orders …`: open orders, the order ticket, cancels, the emergency cancel-all, transfers, withdraw, activateFor. */
import { DeskError } from '../../../contract/errors'
import type { Address, WriteOutcome } from '../../../contract/types'
import type { CliContext } from '../context'
import { outcomeText, cloidArg, NETWORK_OPTION, outcomeData, required, type OutcomeData } from '../desk-write'
import { addressArg } from '../support/address'
import { assetArg, marketArg, marketName, marketsAndAssets } from '../support/assets'
import type { Command, CommandGroup, OptionSpec } from '../router'
import { formatAmount, formatNumber } from '../../../contract/format'
import { accountNamer } from '../support/display'

const s = (valueName: string, description: string): OptionSpec => ({ type: 'string', valueName, description })
const CLOID = s('CLOID', 'client order id (0x + 32 hex; generated when omitted)')

const outcomeLine = (o: OutcomeData): string => outcomeText(o)

/** An account's open orders as the desk lists them, from the app's `account.detail`. */
async function openOrders(ctx: CliContext, account: Address) {
  const d = await ctx.call('account.detail', { address: account })
  return {
    account: d.account.address.toLowerCase(),
    truncated: false,
    orders: d.openOrders.map((o) => ({
      market: o.marketId,
      oid: o.oid,
      side: o.side,
      price: o.price,
      remainingQty: o.remainingQty,
      cloid: o.cloid,
    })),
  }
}

const list: Command = {
  name: 'list',
  summary: 'open orders of one or more accounts across every market',
  positionals: ['ACCOUNT', 'MORE_ACCOUNTS?'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const accounts = ctx.positionals
      .flatMap((p) => p.split(','))
      .filter(Boolean)
      .map(addressArg)
    await ctx.requireSelectedNetwork()
    const names = accountNamer(ctx)
    const r = await Promise.all(accounts.map((a) => openOrders(ctx, a)))
    const name = await names
    const { markets, assets } = await marketsAndAssets(ctx)
    const marketOf = (id: string | null) => {
      const m = markets.find((x) => x.marketId === id)
      return m ? marketName(m, assets) : `market ${id ?? '?'}`
    }
    const lines = r.flatMap((a) => [
      `${name(a.account)}${a.truncated ? ' (truncated at 500)' : ''}${a.orders.length === 0 ? ': no open orders' : ''}`,
      ...a.orders.map(
        (o) =>
          `  ${marketOf(o.market)}  ${o.side === 'bid' ? 'buy ' : 'sell'}  ` +
          `${formatNumber(o.remainingQty)} @ ${formatNumber(o.price)}  oid ${o.oid}` +
          `${o.cloid ? `  ${o.cloid}` : ''}`,
      ),
    ])
    ctx.print(lines, r)
  },
}

/** The app's outcome view as the desk prints an order write: the journal outcome and the per-order leaves. */
function orderResult(o: WriteOutcome) {
  return { outcome: outcomeData(o), leaves: o.leaves }
}

const SIDES: Record<string, 'bid' | 'ask'> = { buy: 'bid', bid: 'bid', sell: 'ask', ask: 'ask' }
const ORDER_TYPES = ['limit', 'market'] as const
const TIFS = ['gtc', 'ioc', 'fok', 'alo'] as const

/** The ticket as the app's order channels take it (SIDE buy/bid or sell/ask; type and tif checked here, the rest in main). */
async function ticket(ctx: CliContext) {
  const [account, market, side, quantity, price] = ctx.positionals as [string, string, string, string, string]
  const s = SIDES[side.trim().toLowerCase()]
  if (!s) throw new DeskError('InvalidSide', 'side must be bid/buy or ask/sell')
  const orderType = ctx.string('type') ?? 'limit'
  if (!(ORDER_TYPES as readonly string[]).includes(orderType)) throw new DeskError('InvalidOrderType', 'order type must be limit or market')
  const tif = ctx.string('tif') ?? 'gtc'
  if (!(TIFS as readonly string[]).includes(tif)) throw new DeskError('InvalidTif', 'tif must be gtc, ioc, fok or alo')
  return {
    account: addressArg(account),
    marketId: (await marketArg(ctx, market)).marketId,
    side: s,
    quantity: quantity.trim(),
    price: price.trim(),
    orderType: orderType as (typeof ORDER_TYPES)[number],
    tif: tif as (typeof TIFS)[number],
    ...cloidArg(ctx),
  }
}

const TICKET_OPTS = {
  ...NETWORK_OPTION,
  type: s('TYPE', 'limit (default) or market'),
  tif: s('TIF', 'gtc (default), ioc, fok or alo'),
  cloid: CLOID,
  'override-band': s(
    'PHRASE',
    'knowingly override the price band for this order: the phrase the PriceOutsideBand refusal gave (journaled)',
  ),
}
const TICKET_POS = ['ACCOUNT', 'MARKET', 'SIDE', 'QUANTITY', 'PRICE']

const check: Command = {
  name: 'check',
  summary: 'check an order ticket against the market precision and minimums (signs nothing)',
  positionals: TICKET_POS,
  options: TICKET_OPTS,
  async run(ctx) {
    const args = await ticket(ctx)
    const t = await ctx.call('orders.check', args)
    const { markets, assets } = await marketsAndAssets(ctx)
    const m = markets.find((x) => x.marketId === t.marketId)
    const base = assets.find((a) => a.assetId === m?.baseAssetId)
    const quote = assets.find((a) => a.assetId === m?.quoteAssetId)
    const value =
      t.notionalQuoteAtoms !== null && quote
        ? ` (value ${formatAmount(BigInt(t.notionalQuoteAtoms), { symbol: quote.symbol, decimals: quote.balanceDecimals })})`
        : ''
    ctx.print(
      [
        `ok: ${args.side === 'bid' ? 'buy' : 'sell'} ${formatNumber(args.quantity)} ` +
          `${base?.symbol ?? ''} at ${formatNumber(args.price)} ${quote?.symbol ?? ''} on ` +
          `${m ? marketName(m, assets) : `market ${t.marketId}`}, ${args.orderType} ${args.tif}` +
          `${value}; nothing was signed`,
        ...t.warnings.map((w) => `warning: ${w}`),
      ],
      t,
    )
  },
}

const place: Command = {
  name: 'place',
  summary: 'place an order (SIDE buy/sell, QUANTITY base, PRICE limit or protection price)',
  positionals: TICKET_POS,
  options: TICKET_OPTS,
  async run(ctx) {
    const args = await ticket(ctx)
    const phrase = ctx.string('override-band')
    await ctx.unlocked()
    const r = orderResult(
      await ctx.call('orders.place', { ...args, ...(phrase ? { override: { priceBand: true as const, confirmText: phrase } } : {}) }),
    )
    ctx.print(
      [
        outcomeLine(r.outcome),
        ...r.leaves.map((l) => `  ${l.kind}${'oid' in l ? ` oid ${l.oid}` : ''}${l.kind === 'error' ? ` ${l.code}` : ''}`),
      ],
      r,
    )
  },
}

const cancel: Command = {
  name: 'cancel',
  summary: 'cancel one order by --oid or --cloid',
  positionals: ['ACCOUNT', 'MARKET'],
  options: { ...NETWORK_OPTION, oid: s('OID', 'order id'), cloid: s('CLOID', 'client order id of the order') },
  async run(ctx) {
    const [given, market] = ctx.positionals as [string, string]
    const account = addressArg(given)
    const marketId = (await marketArg(ctx, market)).marketId
    const cloid = ctx.string('cloid')?.trim().toLowerCase()
    let oid = ctx.string('oid')?.trim()
    if (!oid && !cloid) throw new DeskError('Usage', 'give --oid or --cloid')
    await ctx.unlocked()
    if (!oid) {
      // The app cancels by order id: the open order carrying this cloid names it.
      const o = (await openOrders(ctx, account)).orders.find((x) => x.market === marketId && x.cloid?.toLowerCase() === cloid)
      if (!o)
        throw new DeskError('OrderNotFound', `no open order with cloid ${cloid} in market ${marketId}`, {
          cloid: cloid ?? '',
          market: marketId,
        })
      oid = o.oid
    }
    const r = orderResult(await ctx.call('orders.cancel', { account, marketId, oid }))
    ctx.print([outcomeLine(r.outcome), ...r.leaves.map((l) => `  ${l.kind}${l.kind === 'error' ? ` ${l.code}` : ''}`)], r)
  },
}

const cancelAll: Command = {
  name: 'cancel-all',
  summary: 'cancel every open order of ACCOUNT in MARKET',
  positionals: ['ACCOUNT', 'MARKET'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const [account, market] = ctx.positionals as [string, string]
    const args = { account: addressArg(account), marketId: (await marketArg(ctx, market)).marketId }
    await ctx.unlocked()
    const r = orderResult(await ctx.call('orders.cancelAll', args))
    ctx.print([outcomeLine(r.outcome), `cancelled ${r.leaves.filter((l) => l.kind === 'cancelled').length} order(s)`], r)
  },
}

const emergency: Command = {
  name: 'emergency-cancel',
  summary: 'cancel every open order of ACCOUNT in every market, then re-read',
  positionals: ['ACCOUNT'],
  options: NETWORK_OPTION,
  async run(ctx) {
    const account = addressArg(ctx.positionals[0]!)
    await ctx.confirmYes(`Cancel every open order of ${account} in every market?`)
    await ctx.unlocked()
    const before = await openOrders(ctx, account)
    const writes = (await ctx.call('orders.cancelEverything', { account })).map(orderResult)
    const after = await openOrders(ctx, account)
    const r = {
      account,
      markets: [...new Set(before.orders.map((o) => Number(o.market)))].sort((a, b) => a - b),
      writes,
      // The app refuses the whole call when no chunk could be cancelled; what is still open is the measure.
      failures: [] as { markets: number[]; code: string; message: string }[],
      remaining: after.orders,
    }
    ctx.print(
      [
        `markets: ${r.markets.join(', ') || 'none with open orders'}`,
        ...r.writes.map((w) => outcomeLine(w.outcome)),
        ...r.failures.map((f) => `FAILED markets ${f.markets.join(', ')}: ${f.code} ${f.message}`),
        `open orders left: ${r.remaining.length}`,
      ],
      r,
    )
    if (r.failures.length > 0 || r.remaining.length > 0) ctx.fail(1)
  },
}

const transferCmd: Command = {
  name: 'transfer',
  summary: 'transfer AMOUNT of ASSET between two balance-mode accounts (asks to confirm)',
  positionals: ['FROM', 'TO', 'ASSET', 'AMOUNT'],
  options: { ...NETWORK_OPTION, cloid: CLOID },
  async run(ctx) {
    const [from, to, asset, amount] = ctx.positionals as [string, string, string, string]
    await ctx.unlocked()
    const { assetId } = await assetArg(ctx, asset)
    const r = {
      outcome: outcomeData(
        await ctx.call('transfer.submit', { from: addressArg(from), to: addressArg(to), assetId, amount: amount.trim(), ...cloidArg(ctx) }),
      ),
    }
    ctx.print(outcomeLine(r.outcome), r)
  },
}

const withdrawCmd: Command = {
  name: 'withdraw',
  summary: 'withdraw AMOUNT of ASSET to --dst-address on --dst-chain (asks to confirm)',
  positionals: ['ACCOUNT', 'ASSET', 'AMOUNT'],
  options: {
    ...NETWORK_OPTION,
    'dst-chain': s('CHAIN_ID', 'destination chain id'),
    'dst-address': s('ADDRESS', 'destination address'),
    cloid: CLOID,
  },
  async run(ctx) {
    const [account, asset, amount] = ctx.positionals as [string, string, string]
    const dst = { dstChainId: required(ctx, 'dst-chain').trim(), dstAddress: addressArg(required(ctx, 'dst-address')) }
    await ctx.unlocked()
    const { assetId } = await assetArg(ctx, asset)
    const r = {
      outcome: outcomeData(
        await ctx.call('withdraw.submit', { account: addressArg(account), assetId, amount: amount.trim(), ...dst, ...cloidArg(ctx) }),
      ),
    }
    ctx.print(outcomeLine(r.outcome), r)
  },
}

const activate: Command = {
  name: 'activate',
  summary: 'create the account TARGET, paying the 1.0 activation fee in ASSET (1 or 2) from FROM',
  positionals: ['FROM', 'TARGET', 'ASSET'],
  options: { ...NETWORK_OPTION, cloid: CLOID },
  async run(ctx) {
    const [from, target, asset] = ctx.positionals as [string, string, string]
    await ctx.unlocked()
    const { assetId } = await assetArg(ctx, asset)
    const r = {
      outcome: outcomeData(
        await ctx.call('activate.submit', { account: addressArg(from), target: addressArg(target), feeAssetId: assetId, ...cloidArg(ctx) }),
      ),
    }
    ctx.print(outcomeLine(r.outcome), r)
  },
}

const group: CommandGroup = {
  name: 'orders',
  summary: 'open orders, order ticket, cancels, emergency cancel-all, transfers, withdraw, activateFor',
  commands: [list, check, place, cancel, cancelAll, emergency, transferCmd, withdrawCmd, activate],
}
export default group
