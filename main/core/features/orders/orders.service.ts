import type { Address } from 'viem'
import { formatAmount, formatNumber } from '../../../contract/format'
import { DeskError } from '../../errors/desk-error'
import type { Leaf } from '../../exchange/trade/classify'
import { TradeRejectedError } from '../../exchange/trade/errors'
import { formatAtoms, mulDivFloor, parseDecimal, significantFigures } from '../../money/decimal'
import type { BatchItem, OrderAction, OrderType, Side, Tif } from '../../wire'
import type { MarketInfo, OpenOrderInfo } from '../../session/account-reads'
import { tradingSignerFor, type AgentKeys } from '../../session/trading-signer'
import { checkAddress, short, type WriteContext, type WriteOutcome } from '../../session/write-context'
import type { PriceBandOverride } from '../../policy'
import type { SigningIntent } from '../../vault/signing-policy'
import { requireSubmitted, type RunWrite, type WriteResult, type WriteSpec } from '../../writes'

/**
 * Order ticket, cancel, cancel-all per market and the emergency cancel-all across every market
 * of an account. Orders are signed by the account's trading signer (an approved agent with its
 * epoch, else the owner key). An order the owner key signs asks the operator first (the session's
 * submitter refuses one without that confirmation); cancels never ask.
 */
export type OrdersContext = WriteContext & { keys: AgentKeys }

export interface OrderTicket {
  account: string
  market: number | string
  side: Side
  orderType: OrderType
  tif: Tif
  /** Limit price, or the protection price of a market order (display decimal). */
  price: string
  /** Base quantity (display decimal). */
  quantity: string
  cloid?: string
}

export interface CheckedTicket {
  action: OrderAction
  market: MarketInfo
  priceAtoms: string
  quantityAtoms: string
  /** Order notional in quote atoms (floor), when the quote asset is known. */
  notionalQuoteAtoms: string | null
  warnings: string[]
}

export interface OrderResult {
  outcome: WriteOutcome
  /** Every order outcome (per-order failures are `error` leaves). */
  leaves: Leaf[]
}

async function marketOf(ctx: WriteContext, id: number | string): Promise<MarketInfo> {
  const s = String(id).trim()
  if (!/^(0|[1-9][0-9]*)$/.test(s)) throw new DeskError('InvalidMarketId', `market must be a market id, got "${s.slice(0, 40)}"`)
  const m = (await ctx.reads.markets()).find((x) => x.marketId === Number(s))
  if (!m) throw new DeskError('UnknownMarket', `no market ${s} on this network`, { market: s })
  return m
}

/**
 * Checks a ticket with the spec's precision rules: price at `price_decimals`, quantity at
 * `base_quantity_decimals` (more digits are refused, not rounded), both positive, the quote
 * minimum notional, and the credit-account market gate. `max_price_sig_figs` is enforced at
 * execution, so it is only a warning here.
 */
export async function checkOrderTicket(ctx: WriteContext, t: OrderTicket): Promise<CheckedTicket> {
  const account = checkAddress(t.account, 'account')
  const market = await marketOf(ctx, t.market)
  if (!['bid', 'ask', 'buy', 'sell'].includes(t.side)) throw new DeskError('InvalidSide', 'side must be bid/buy or ask/sell')
  if (!['limit', 'market'].includes(t.orderType)) throw new DeskError('InvalidOrderType', 'order type must be limit or market')
  if (!['gtc', 'ioc', 'fok', 'alo'].includes(t.tif)) throw new DeskError('InvalidTif', 'tif must be gtc, ioc, fok or alo')
  const price = parseDecimal(t.price, market.priceDecimals)
  const qty = parseDecimal(t.quantity, market.baseQuantityDecimals)
  if (price <= 0n) throw new DeskError('InvalidPrice', 'price must be greater than zero')
  if (qty <= 0n) throw new DeskError('InvalidQuantity', 'quantity must be greater than zero')
  const warnings: string[] = []
  if (market.maxPriceSigFigs > 0 && significantFigures(price) > market.maxPriceSigFigs) {
    warnings.push(`price has more than ${market.maxPriceSigFigs} significant figures; the service may refuse it at execution`)
  }
  // notional (quote atoms) = price * qty / 10^(price_decimals + qty_decimals - quote_decimals)
  const shift = market.priceDecimals + market.baseQuantityDecimals - market.quoteBalanceDecimals
  const notional = shift >= 0 ? mulDivFloor(price, qty, 10n ** BigInt(shift)) : price * qty * 10n ** BigInt(-shift)
  let notionalOut: string | null = notional.toString()
  if (market.quoteAssetId !== null) {
    const min = (await ctx.reads.quoteMinimums()).get(market.quoteAssetId)
    if (min !== undefined && notional < min) {
      const q = (await ctx.reads.assets()).find((a) => a.assetId === market.quoteAssetId)
      const units = { symbol: q?.symbol ?? `asset ${market.quoteAssetId}`, decimals: market.quoteBalanceDecimals }
      throw new DeskError(
        'MinTradeSpotNtl',
        `order value ${formatAmount(notional, units)} is below the minimum ${formatAmount(min, units)}`,
        { notional: formatAtoms(notional, units.decimals), minimum: formatAtoms(min, units.decimals) },
      )
    }
  } else {
    notionalOut = null
  }
  const line = await (ctx.reads.tradingGate ? ctx.reads.tradingGate(account) : ctx.reads.creditLine(account))
  if (line.isCredit) {
    if (line.status !== 'active') throw new DeskError('SpotCreditAccountFrozen', `${account} is a frozen credit account and cannot trade`)
    if (!market.creditTrading && !line.whitelistedMarketIds.includes(String(market.marketId))) {
      throw new DeskError(
        'CreditTradingDisabled',
        `market ${market.marketId} is not open to credit accounts and not whitelisted for ${account}`,
      )
    }
  }
  const action: OrderAction = {
    type: 'order',
    market_id: String(market.marketId),
    side: t.side,
    order_type: t.orderType,
    tif: t.tif,
    price: t.price.trim(),
    quantity: t.quantity.trim(),
    ...(t.cloid ? { cloid: t.cloid } : {}),
  }
  return { action, market, priceAtoms: price.toString(), quantityAtoms: qty.toString(), notionalQuoteAtoms: notionalOut, warnings }
}

/** The book an order is banded against, when the caller holds a recent read (else the guardrail reads it). */
export type BookForWrite = (marketId: number) => Promise<{ bid: string | null; ask: string | null }>

/**
 * An order as the write pipeline takes it: the ticket checked with the spec's precision rules,
 * signed by the account's trading signer; its guardrail is the order value and the price band.
 */
export function orderWrite(
  t: OrderTicket,
  o: { override?: PriceBandOverride | undefined; book?: BookForWrite } = {},
): WriteSpec<CheckedTicket> {
  return {
    kind: 'order',
    describe: async (w) => {
      const ctx = w.ctx
      const ticket = await checkOrderTicket(ctx, t)
      const owner = checkAddress(t.account, 'account')
      const signer = await tradingSignerFor(ctx, owner)
      const book = o.book ? await o.book(ticket.market.marketId) : undefined
      const summary = `${t.side} ${t.quantity} @ ${t.price} ${t.orderType}/${t.tif} market ${ticket.market.marketId} (${short(owner)})`
      const words = await orderWords(ctx, ticket, t)
      const title = words.title
      const intent = signer.ref.role === 'owner' ? ownerOrderIntent(t, words, ticket.warnings) : undefined
      return {
        account: owner,
        title,
        preview: [summary, ...ticket.warnings],
        guard: {
          order: {
            order: {
              market: ticket.market,
              side: t.side,
              price: t.price,
              priceAtoms: ticket.priceAtoms,
              notionalQuoteAtoms: ticket.notionalQuoteAtoms,
              ...(book ? { book } : {}),
            },
            override: o.override,
          },
        },
        feature: ticket,
        signing: {
          channel: 'trade',
          request: {
            account: owner,
            signer: signer.ref,
            agentEpoch: signer.agentEpoch,
            action: ticket.action,
            summary,
            ...(intent ? { intent } : {}),
          },
        },
      }
    },
  }
}

/** An order as the operator reads it: "Buy 0.01 ETH at 3,300 USDC on ETH/USDC", and its value in the quote asset. */
async function orderWords(ctx: WriteContext, ticket: CheckedTicket, t: OrderTicket) {
  const m = ticket.market
  const assets = await ctx.reads.assets()
  const sym = (id: number | null) => (id === null ? null : (assets.find((a) => a.assetId === id)?.symbol ?? null))
  const quote = sym(m.quoteAssetId)
  const base = sym(m.baseAssetId)
  const market = m.symbol ?? (base && quote ? `${base}/${quote}` : `market ${m.marketId}`)
  const value =
    ticket.notionalQuoteAtoms !== null && quote !== null ? formatAtoms(BigInt(ticket.notionalQuoteAtoms), m.quoteBalanceDecimals) : null
  const qty = base ? formatAmount(t.quantity.trim(), { symbol: base }) : formatNumber(t.quantity.trim())
  const price = quote ? formatAmount(t.price.trim(), { symbol: quote }) : formatNumber(t.price.trim())
  const side = t.side === 'bid' || t.side === 'buy' ? 'Buy' : 'Sell'
  return { title: `${side} ${qty} at ${price} on ${market}`, value: value !== null ? { units: value, symbol: quote! } : null }
}

/** What the confirmation of an owner-key order shows: the order, its value in the quote asset, why the owner key signs. */
function ownerOrderIntent(t: OrderTicket, words: Awaited<ReturnType<typeof orderWords>>, warnings: string[]): SigningIntent {
  const v = words.value
  return {
    action: 'order',
    title: words.title,
    summary: [
      `${words.title} (${t.orderType}, ${t.tif.toUpperCase()})`,
      ...(v ? [`Order value: ${formatAmount(v.units, { symbol: v.symbol })}`] : []),
      'Signed by the owner key: no approved API key of this account is in the vault ' +
        '(approve one on Agents, or desk agents approve, to trade without this confirmation)',
      ...warnings,
    ],
    details: v ? { amount: { units: v.units, symbol: v.symbol, usd: null } } : {},
  }
}

/**
 * A cancel of an order the exchange no longer lists as open (filled, cancelled, never placed)
 * would only come back rejected: it is refused before signing. A truncated listing (over 500 open
 * orders) proves nothing, so the target's own status is read: a cancel is signed only for an order
 * the exchange shows on its book now. That is what lets the reconciler read "target still open
 * after the cancel could no longer run" as "the cancel took no effect": the target existed before
 * the cancel was sent, never an order still in flight that landed after it (issue 30.5).
 */
async function requireOpen(ctx: WriteContext, owner: string, marketId: number, req: { oid?: string; cloid?: string }): Promise<void> {
  const listed = (orders: OpenOrderInfo[]) =>
    orders.some((o) => (req.oid !== undefined ? o.oid === req.oid : o.cloid !== null && o.cloid.toLowerCase() === req.cloid!.toLowerCase()))
  // Listed in live state, even from before the account's latest write: the exchange decides
  // (a cancel of an order that just went is only answered with an error leaf); not listed, it
  // is confirmed on fresh state before refusing.
  const { orders, truncated } = ctx.reads.writeOpenOrders
    ? await ctx.reads.writeOpenOrders(owner, marketId, (o) => listed(o))
    : await ctx.reads.openOrders(owner, marketId)
  const open = truncated ? await targetOnBook(ctx, owner, marketId, req) : listed(orders)
  if (!open) {
    const which = req.oid !== undefined ? `oid ${req.oid}` : `cloid ${req.cloid}`
    throw new DeskError(
      'OrderNotOpen',
      `${which} is not open in market ${marketId} (filled, cancelled or never placed): there is nothing to cancel. Check its fills and the order status.`,
      { market: marketId },
    )
  }
}

/** A truncated listing: the target's own status says whether it is on the book now. */
async function targetOnBook(ctx: WriteContext, owner: string, marketId: number, req: { oid?: string; cloid?: string }): Promise<boolean> {
  if (!ctx.reads.orderIsOpen) return false // cannot confirm it: refused, never a guess
  return ctx.reads.orderIsOpen(req.oid !== undefined ? { oid: req.oid } : { user: owner, marketId, cloid: req.cloid! })
}

/** What a cancel hands back: the owner and the reads live state is told about the cancel through. */
interface CancelNote {
  owner: Address
  reads: WriteContext['reads']
}

/** Cancels one order by oid or cloid (refused before signing when the exchange no longer lists it). */
export async function cancelOrder(
  run: RunWrite,
  req: { account: string; market: number | string; oid?: string; cloid?: string },
): Promise<WriteResult<CancelNote>> {
  const r = await run<CancelNote>({
    kind: 'cancel',
    describe: async (w) => {
      const ctx = w.ctx
      const owner = checkAddress(req.account, 'account')
      const market = await marketOf(ctx, req.market)
      if (req.oid === undefined && req.cloid === undefined) throw new DeskError('MissingOidOrCloid', 'cancel needs an oid or a cloid')
      if (req.oid !== undefined && !/^(0|[1-9][0-9]*)$/.test(req.oid)) throw new DeskError('InvalidOid', 'oid must be a decimal integer')
      await requireOpen(ctx, owner, market.marketId, req)
      const signer = await tradingSignerFor(ctx, owner)
      const summary = `cancel ${req.oid !== undefined ? `oid ${req.oid}` : `cloid ${req.cloid}`} in market ${market.marketId} (${short(owner)})`
      return {
        account: owner,
        title: `Cancel ${req.oid !== undefined ? `order ${req.oid}` : `cloid ${req.cloid}`} in market ${market.marketId}`,
        preview: [summary],
        feature: { owner, reads: ctx.reads },
        signing: {
          channel: 'trade',
          request: {
            account: owner,
            signer: signer.ref,
            agentEpoch: signer.agentEpoch,
            action: {
              type: 'cancel',
              market_id: String(market.marketId),
              ...(req.oid !== undefined ? { oid: req.oid } : { cloid: req.cloid! }),
            },
            summary,
          },
        },
      }
    },
  })
  if (r.state === 'submitted') {
    const cancelled = r.leaves.flatMap((l) => (l.kind === 'cancelled' ? [l.oid] : []))
    if (req.oid !== undefined && !r.leaves.some((l) => l.kind === 'error')) cancelled.push(req.oid)
    r.feature.reads.noteCancelled?.(r.feature.owner, { oids: cancelled })
  }
  return r
}

/** The cancel of every order of an account in the given markets (one `cancelAll`, or a batch of them). */
function cancelAllWrite(ctx: OrdersContext, owner: Address, marketIds: number[], summary: (m: string) => string): WriteSpec<CancelNote> {
  return {
    kind: 'cancel',
    describe: async () => {
      const signer = await tradingSignerFor(ctx, owner)
      const items: BatchItem[] = marketIds.map((m) => ({ type: 'cancelAll', market_id: String(m) }))
      const line = summary(marketIds.join(', '))
      return {
        account: owner,
        title: `Cancel every order of ${short(owner)} in market${marketIds.length > 1 ? 's' : ''} ${marketIds.join(', ')}`,
        preview: [line],
        feature: { owner, reads: ctx.reads },
        signing: {
          channel: 'trade',
          request: {
            account: owner,
            signer: signer.ref,
            agentEpoch: signer.agentEpoch,
            action: items.length === 1 ? items[0]! : { type: 'batch', items },
            summary: line,
          },
        },
      }
    },
  }
}

export async function cancelAllInMarket(
  ctx: OrdersContext,
  run: RunWrite,
  req: { account: string; market: number | string },
): Promise<WriteResult<CancelNote>> {
  const owner = checkAddress(req.account, 'account')
  const market = await marketOf(ctx, req.market)
  const r = await run(cancelAllWrite(ctx, owner, [market.marketId], (m) => `cancel all in market ${m} (${short(owner)})`))
  if (r.state === 'submitted' && !r.leaves.some((l) => l.kind === 'error'))
    ctx.reads.noteCancelled?.(owner, { marketIds: [market.marketId] })
  return r
}

export interface EmergencyCancelResult {
  account: string
  markets: number[]
  /** One write per batch of up to 10 markets. */
  writes: (OrderResult & { markets: number[] })[]
  /** Batches that did not go through (typed error data), so the operator can retry them. */
  failures: { markets: number[]; code: string; message: string }[]
  /** Open orders left after the cancels (re-read), by market. */
  remaining: { market: number | null; oid: string }[]
}

/**
 * Cancels every open order of an account in every market: the markets come from a cross-market
 * open-orders read, cancelled with `cancelAll` items batched 10 per write (fewest requests under
 * the rate budget; cancels are accepted even while placing is suspended), then verified. The
 * reads come from live state when it settles the question (orders listed: their markets are
 * cancelled; after the cancels, a frame received since they were sent showing none left), else
 * from /info ahead of every screen's read. Orders found in markets not yet cancelled (placed
 * meanwhile, or missed by an old frame) get one more round.
 */
export async function emergencyCancelAll(ctx: OrdersContext, run: RunWrite, req: { account: string }): Promise<EmergencyCancelResult> {
  const owner = checkAddress(req.account, 'account')
  const reads = ctx.reads
  const read = (enough: (orders: OpenOrderInfo[], afterWrite: boolean) => boolean) =>
    reads.writeOpenOrders ? reads.writeOpenOrders(owner, -1, enough) : reads.openOrders(owner, -1)
  const out: EmergencyCancelResult = { account: owner, markets: [], writes: [], failures: [], remaining: [] }
  const cancelled = new Set<number>()
  let open = await read((orders) => orders.length > 0)
  for (let round = 0; round < 2; round++) {
    const marketIds = new Set<number>()
    for (const o of open.orders) if (o.marketId !== null && !cancelled.has(o.marketId)) marketIds.add(o.marketId)
    if (round === 0 && (open.truncated || open.orders.some((o) => o.marketId === null))) {
      for (const m of await reads.markets()) marketIds.add(m.marketId)
    }
    const markets = [...marketIds].sort((a, b) => a - b)
    if (markets.length === 0) break
    for (let i = 0; i < markets.length; i += 10) {
      const chunk = markets.slice(i, i + 10)
      try {
        const r = requireSubmitted(
          await run(cancelAllWrite(ctx, owner, chunk, (m) => `emergency cancel-all in markets ${m} (${short(owner)})`)),
        )
        out.writes.push({ markets: chunk, outcome: r.outcome, leaves: r.leaves })
        for (const m of chunk) cancelled.add(m)
      } catch (e) {
        if (!(e instanceof DeskError)) throw e
        out.failures.push({ markets: chunk, code: e instanceof TradeRejectedError ? e.rejectCode : e.code, message: e.message })
      }
    }
    out.markets = [...new Set([...out.markets, ...markets])].sort((a, b) => a - b)
    // Verified on state newer than the cancels: a frame since they were sent listing none, else /info.
    open = await read((orders, afterWrite) => afterWrite && orders.length === 0)
    if (out.failures.length > 0 || open.orders.every((o) => o.marketId !== null && cancelled.has(o.marketId))) break
  }
  // The last read is the verification (or, with nothing to cancel, the read that found nothing).
  out.remaining = open.orders.map((o) => ({ market: o.marketId, oid: o.oid }))
  return out
}

/** Open orders of several accounts, for the orders view. */
export async function openOrdersAcross(
  ctx: WriteContext,
  accounts: string[],
): Promise<
  { account: string; orders: { market: number | null; oid: string; cloid: string | null; remainingQty: string }[]; truncated: boolean }[]
> {
  const out = []
  for (const a of accounts) {
    const acct = checkAddress(a, 'account')
    const r = await ctx.reads.openOrders(acct, -1)
    out.push({
      account: acct,
      truncated: r.truncated,
      orders: r.orders.map((o) => ({ market: o.marketId, oid: o.oid, cloid: o.cloid, remainingQty: o.remainingQty })),
    })
  }
  return out
}
