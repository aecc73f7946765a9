import type { Address } from 'viem'
import type { OrderLeaf } from '../../main/core/wire/actions'
import { significantFigures } from '../../main/core/money/decimal'
import type { Order, OrderBook } from './book'
import { fmtAvgPrice, fmtPrice, fmtQty, wsFill, wsOrder } from './format'
import type { Account, ChainState, FillRecord, OrderStatusString } from './state'
import type { BlockEvents, MarketConfig, WsOrderStatus } from './types'
import { baseAtoms, creditMayTrade, creditView, notional, orderHold } from './valuation'

/** The integer matching engine: placement, matching, cancels, modify. Runs inside a block. */

export const MAX_OPEN_ORDERS_PER_MARKET = 1000
export const MAX_FILLS_PER_ORDER = 100
export const MAX_RETAINED_FILLS = 10_000
const FEE_DENOMINATOR = 10_000_000n // milli-basis-points

export interface BlockCtx {
  state: ChainState
  height: number
  timeMs: number
  staleMarks: boolean
  events: BlockEvents
  feeAccount: Address
  /** false: fills carry no fee record (before fee activation); default true */
  feesActive?: boolean
  /** false: withdraw records carry vault_address null (before vault payouts); default true */
  vaultPayouts?: boolean
}

export interface PlaceRequest {
  side: 'bid' | 'ask'
  orderType: 'limit' | 'market'
  tif: 'gtc' | 'ioc' | 'fok' | 'alo'
  price: bigint
  qty: bigint
  cloid: string | null
}

const WS_STATUS: Record<OrderStatusString, WsOrderStatus> = {
  open: 'open',
  partiallyfilledresting: 'open',
  filled: 'filled',
  cancelled: 'canceled',
  selftradepreventioncancel: 'selfTradeCanceled',
  badalopx: 'badAloPxRejected',
  ioccancel: 'iocCancelRejected',
  fokcancel: 'fokCancelRejected',
  marketordernoliquidity: 'marketOrderNoLiquidityRejected',
  insufficientspotcredit: 'insufficientspotcredit',
  maxfillsexceeded: 'maxfillsexceeded',
}

function touch(ctx: BlockCtx, user: Address, marketId?: number): void {
  ctx.events.touchedUsers.add(user)
  if (marketId !== undefined) {
    ctx.events.touchedMarkets.add(String(marketId))
    const book = ctx.state.books.get(marketId)
    if (book) {
      book.lastUpdateHeight = ctx.height
      book.lastUpdateMs = ctx.timeMs
    }
  }
}

function pushUpdate(ctx: BlockCtx, o: Order, status: WsOrderStatus, terminal: boolean): void {
  ctx.events.orderUpdates.push({
    user: o.owner,
    update: { order: wsOrder(ctx.state, o, terminal ? 0n : o.remaining), status, statusTimestamp: ctx.timeMs },
  })
}

/** Writes the order's status record (and its cloid index) and emits its orderUpdates transition. */
function record(ctx: BlockCtx, o: Order, status: OrderStatusString, terminal: boolean): void {
  const s = ctx.state
  s.statusByOid.set(o.oid, { order: o, status, height: ctx.height, timeMs: ctx.timeMs })
  if (o.cloid) s.oidByCloid.set(`${o.owner}:${o.marketId}:${o.cloid.toLowerCase()}`, o.oid)
  pushUpdate(ctx, o, WS_STATUS[status], terminal)
  touch(ctx, o.owner, o.marketId)
}

function lock(ctx: BlockCtx, acct: Account, o: Order): void {
  if (acct.kind !== 'balance') return
  const h = orderHold(ctx.state, o)
  const b = ctx.state.balance(acct, h.assetId)
  b.available -= h.atoms
  b.locked += h.atoms
}

function unlockRemaining(ctx: BlockCtx, acct: Account, o: Order): void {
  if (acct.kind !== 'balance') return
  const h = orderHold(ctx.state, o)
  const b = ctx.state.balance(acct, h.assetId)
  b.available += h.atoms
  b.locked -= h.atoms
}

function addFill(ctx: BlockCtx, f: FillRecord): void {
  let list = ctx.state.fills.get(f.user)
  if (!list) {
    list = []
    ctx.state.fills.set(f.user, list)
  }
  list.push(f)
  if (list.length > MAX_RETAINED_FILLS) list.splice(0, list.length - MAX_RETAINED_FILLS)
  ctx.events.fills.push({ user: f.user, fill: wsFill(ctx.state, f) })
}

function feeAccount(ctx: BlockCtx): Account {
  return ctx.state.accounts.get(ctx.feeAccount) ?? ctx.state.createAccount(ctx.feeAccount, 'balance')
}

/** Moves value for one trade of `q` at the maker's price; updates both orders. */
function executeTrade(ctx: BlockCtx, m: MarketConfig, taker: Order, maker: Order, q: bigint): void {
  const s = ctx.state
  const p = maker.price
  const buyerOrder = taker.side === 'bid' ? taker : maker
  const sellerOrder = taker.side === 'bid' ? maker : taker
  const buyer = s.accounts.get(buyerOrder.owner)!
  const seller = s.accounts.get(sellerOrder.owner)!
  const base = baseAtoms(s, m, q)
  const quote = notional(s, m, p, q)
  const buyerRate = BigInt(buyerOrder === taker ? m.taker_fee_milli_bps : m.maker_fee_milli_bps)
  const sellerRate = BigInt(sellerOrder === taker ? m.taker_fee_milli_bps : m.maker_fee_milli_bps)
  const feesActive = ctx.feesActive !== false
  const buyerFee = feesActive ? (base * buyerRate) / FEE_DENOMINATOR : 0n
  const sellerFee = feesActive ? (quote * sellerRate) / FEE_DENOMINATOR : 0n

  if (buyer.kind === 'balance') {
    const held = notional(s, m, buyerOrder.price, q)
    const qb = s.balance(buyer, m.quote_asset_id)
    qb.locked -= held
    qb.available += held - quote
    s.balance(buyer, m.base_asset_id).available += base - buyerFee
  } else {
    const pos = buyer.credit!.positions
    pos.set(m.quote_asset_id, (pos.get(m.quote_asset_id) ?? 0n) - quote)
    pos.set(m.base_asset_id, (pos.get(m.base_asset_id) ?? 0n) + base - buyerFee)
  }
  if (seller.kind === 'balance') {
    s.balance(seller, m.base_asset_id).locked -= base
    s.balance(seller, m.quote_asset_id).available += quote - sellerFee
  } else {
    const pos = seller.credit!.positions
    pos.set(m.base_asset_id, (pos.get(m.base_asset_id) ?? 0n) - base)
    pos.set(m.quote_asset_id, (pos.get(m.quote_asset_id) ?? 0n) + quote - sellerFee)
  }
  const fa = feeAccount(ctx)
  if (buyerFee > 0n) s.balance(fa, m.base_asset_id).available += buyerFee
  if (sellerFee > 0n) s.balance(fa, m.quote_asset_id).available += sellerFee

  for (const o of [taker, maker]) {
    o.remaining -= q
    o.filled += q
    o.sumPriceQty += p * q
    o.fills += 1
  }
  const tid = s.nextTid++
  const common = { tid, height: ctx.height, timeMs: ctx.timeMs, marketId: m.market_id, price: p, qty: q }
  addFill(ctx, {
    ...common,
    user: buyer.address,
    side: 'B',
    crossed: buyerOrder === taker,
    oid: buyerOrder.oid,
    cloid: buyerOrder.cloid,
    fee: buyerFee,
    feeAssetId: feesActive ? m.base_asset_id : null,
    feeMode: feesActive ? buyer.kind : null,
  })
  addFill(ctx, {
    ...common,
    user: seller.address,
    side: 'A',
    crossed: sellerOrder === taker,
    oid: sellerOrder.oid,
    cloid: sellerOrder.cloid,
    fee: sellerFee,
    feeAssetId: feesActive ? m.quote_asset_id : null,
    feeMode: feesActive ? seller.kind : null,
  })
  ctx.events.trades.push({
    coin: String(m.market_id),
    side: taker.side === 'bid' ? 'B' : 'A',
    px: fmtPrice(s, m.market_id, p),
    sz: fmtQty(s, m.market_id, q),
    time: ctx.timeMs,
    tid,
    users: [buyer.address, seller.address],
  })
  touch(ctx, buyer.address, m.market_id)
  touch(ctx, seller.address, m.market_id)
}

function crossesPrice(side: 'bid' | 'ask', limit: bigint, makerPrice: bigint): boolean {
  return side === 'bid' ? makerPrice <= limit : makerPrice >= limit
}

/** Liquidity an incoming order could take before hitting its own order or the fill cap. */
function fillableQty(book: OrderBook, owner: Address, side: 'bid' | 'ask', limit: bigint): bigint {
  let total = 0n
  let count = 0
  for (const level of book.side(side === 'bid' ? 'ask' : 'bid').levels) {
    if (!crossesPrice(side, limit, level.price)) break
    for (const o of level.orders) {
      // a resting order at its fill cap is retired when met, not filled
      if (o.fills >= MAX_FILLS_PER_ORDER) continue
      if (o.owner === owner || count >= MAX_FILLS_PER_ORDER) return total
      total += o.remaining
      count++
    }
  }
  return total
}

function openCount(ctx: BlockCtx, owner: Address, marketId: number): number {
  let n = 0
  for (const o of ctx.state.openByOwner.get(owner)?.values() ?? []) if (o.marketId === marketId) n++
  return n
}

/**
 * Order validation before an oid exists (no status record on failure): lowercase leaf code
 * or null. `credit` covers the market gate of credit accounts.
 */
export function validateOrder(
  ctx: BlockCtx,
  acct: Account,
  m: MarketConfig,
  req: PlaceRequest,
  releasedHold?: { assetId: number; atoms: bigint },
): string | null {
  if (req.price <= 0n || significantFigures(req.price) > m.max_price_sig_figs) return 'tick'
  if (req.qty <= 0n) return 'lotsize'
  if (openCount(ctx, acct.address, m.market_id) >= MAX_OPEN_ORDERS_PER_MARKET) return 'accountopenorderlimit'
  const quote = ctx.state.assets.get(m.quote_asset_id)
  const ntl = notional(ctx.state, m, req.price, req.qty)
  if (quote?.min_quote_notional_atoms !== undefined && ntl < quote.min_quote_notional_atoms) return 'mintradespotntl'
  if (acct.kind === 'balance') {
    if (acct.status !== 'active') return 'accountfrozen'
    const assetId = req.side === 'bid' ? m.quote_asset_id : m.base_asset_id
    const need = req.side === 'bid' ? ntl : baseAtoms(ctx.state, m, req.qty)
    const released = releasedHold && releasedHold.assetId === assetId ? releasedHold.atoms : 0n
    if ((acct.balances.get(assetId)?.available ?? 0n) + released < need) return 'insufficientspotbalance'
  } else {
    if (acct.status !== 'active') return 'spotcreditaccountfrozen'
    if (!creditMayTrade(acct, m)) return 'featuredisabled'
  }
  return null
}

function filledLeaf(ctx: BlockCtx, o: Order): OrderLeaf {
  return {
    filled: {
      total_sz: fmtQty(ctx.state, o.marketId, o.filled),
      avg_px: fmtAvgPrice(ctx.state, o.marketId, o.sumPriceQty, o.filled),
      oid: o.oid,
      cloid: o.cloid,
    },
  }
}

/** Places an already validated order: assigns the oid, matches, rests or closes it. */
export function placeValidated(ctx: BlockCtx, acct: Account, m: MarketConfig, req: PlaceRequest): OrderLeaf {
  const s = ctx.state
  const book = s.books.get(m.market_id)!
  const o: Order = {
    oid: s.nextOid++,
    owner: acct.address,
    ownerIndex: acct.index,
    marketId: m.market_id,
    side: req.side,
    price: req.price,
    origQty: req.qty,
    remaining: req.qty,
    filled: 0n,
    sumPriceQty: 0n,
    cloid: req.cloid,
    tif: req.tif,
    orderType: req.orderType,
    timestampMs: ctx.timeMs,
    fills: 0,
  }
  const close = (status: OrderStatusString): OrderLeaf => {
    record(ctx, o, status, true)
    return { error: status }
  }

  if (acct.kind === 'credit') {
    const h = orderHold(s, o)
    const view = creditView(s, acct, ctx.timeMs, ctx.staleMarks, [{ assetId: h.assetId, pending: -h.atoms }])
    if (view.available === null || view.available < 0n) return close('insufficientspotcredit')
  }
  const crossing = book.crosses(o.side, o.price)
  if (o.orderType === 'limit' && o.tif === 'alo' && crossing) return close('badalopx')
  const effectiveTif = o.orderType === 'market' ? (o.tif === 'fok' ? 'fok' : 'ioc') : o.tif
  if (effectiveTif === 'fok' && fillableQty(book, o.owner, o.side, o.price) < o.origQty) return close('fokcancel')
  if (o.orderType === 'market' && !crossing) return close('marketordernoliquidity')

  lock(ctx, acct, o)
  let stp = false
  let capped = false
  const opposite = book.side(o.side === 'bid' ? 'ask' : 'bid')
  while (o.remaining > 0n) {
    const level = opposite.best()
    if (!level || !crossesPrice(o.side, o.price, level.price)) break
    const maker = level.orders[0]!
    if (maker.fills >= MAX_FILLS_PER_ORDER) {
      // Fills per order: 100; the 101st is refused (`maxfillsexceeded`): the resting order
      // leaves the book with its remainder released, and matching goes on with the next one.
      level.orders.shift()
      opposite.pruneBest()
      book.byOid.delete(maker.oid)
      s.openOrdersOf(maker.owner).delete(maker.oid)
      const makerAcct = s.accounts.get(maker.owner)
      if (makerAcct) unlockRemaining(ctx, makerAcct, maker)
      maker.remaining = 0n
      record(ctx, maker, 'maxfillsexceeded', true)
      continue
    }
    if (maker.owner === o.owner) {
      stp = true
      break
    }
    if (o.fills >= MAX_FILLS_PER_ORDER) {
      capped = true
      break
    }
    const q = o.remaining < maker.remaining ? o.remaining : maker.remaining
    executeTrade(ctx, m, o, maker, q)
    if (maker.remaining === 0n) {
      level.orders.shift()
      opposite.pruneBest()
      book.byOid.delete(maker.oid)
      s.openOrdersOf(maker.owner).delete(maker.oid)
      record(ctx, maker, 'filled', true)
    } else {
      pushUpdate(ctx, maker, 'open', false)
    }
  }

  if (o.remaining === 0n) {
    record(ctx, o, 'filled', true)
    return filledLeaf(ctx, o)
  }
  if (stp || capped) {
    unlockRemaining(ctx, acct, o)
    return close(stp ? 'selftradepreventioncancel' : 'maxfillsexceeded')
  }
  if (effectiveTif === 'ioc') {
    unlockRemaining(ctx, acct, o)
    if (o.filled === 0n) return close(o.orderType === 'market' ? 'marketordernoliquidity' : 'ioccancel')
    record(ctx, o, 'filled', true)
    return filledLeaf(ctx, o)
  }
  book.add(o)
  s.openOrdersOf(o.owner).set(o.oid, o)
  record(ctx, o, o.filled > 0n ? 'partiallyfilledresting' : 'open', false)
  return { open: { oid: o.oid, cloid: o.cloid } }
}

export function placeOrder(ctx: BlockCtx, acct: Account, m: MarketConfig, req: PlaceRequest): OrderLeaf {
  const bad = validateOrder(ctx, acct, m, req)
  if (bad) return { error: bad }
  return placeValidated(ctx, acct, m, req)
}

/** The owner's open order in a market by oid (preferred) or cloid. */
export function findOpen(
  state: ChainState,
  owner: Address,
  marketId: number,
  target: { oid?: number | undefined; cloid?: string | undefined },
): Order | undefined {
  const book = state.books.get(marketId)
  if (!book) return undefined
  if (target.oid !== undefined) {
    const o = book.byOid.get(target.oid)
    return o && o.owner === owner ? o : undefined
  }
  if (target.cloid !== undefined) {
    const c = target.cloid.toLowerCase()
    for (const o of state.openByOwner.get(owner)?.values() ?? []) {
      if (o.marketId === marketId && o.cloid?.toLowerCase() === c) return o
    }
  }
  return undefined
}

function cancelResting(ctx: BlockCtx, acct: Account, o: Order): OrderLeaf {
  const book = ctx.state.books.get(o.marketId)!
  book.remove(o)
  ctx.state.openOrdersOf(o.owner).delete(o.oid)
  unlockRemaining(ctx, acct, o)
  o.remaining = 0n
  record(ctx, o, 'cancelled', true)
  return { cancelled: { oid: o.oid, cloid: o.cloid } }
}

export function cancelOrder(
  ctx: BlockCtx,
  acct: Account,
  marketId: number,
  target: { oid?: number | undefined; cloid?: string | undefined },
): OrderLeaf {
  if (!ctx.state.markets.has(marketId)) return { error: 'marketnotfound' }
  const o = findOpen(ctx.state, acct.address, marketId, target)
  if (!o) return { error: 'missingorder' }
  return cancelResting(ctx, acct, o)
}

export function cancelAll(ctx: BlockCtx, acct: Account, marketId: number): OrderLeaf[] {
  if (!ctx.state.markets.has(marketId)) return [{ error: 'marketnotfound' }]
  const mine = [...(ctx.state.openByOwner.get(acct.address)?.values() ?? [])].filter((o) => o.marketId === marketId)
  mine.sort((a, b) => a.oid - b.oid)
  return mine.map((o) => cancelResting(ctx, acct, o))
}

/** Cancel-and-replace, atomically: when the replacement fails validation the old order stays in place. */
export function modifyOrder(
  ctx: BlockCtx,
  acct: Account,
  marketId: number,
  target: { oid?: number | undefined; cloid?: string | undefined },
  req: PlaceRequest,
): OrderLeaf {
  const m = ctx.state.markets.get(marketId)
  if (!m) return { error: 'marketnotfound' }
  const old = findOpen(ctx.state, acct.address, marketId, target)
  if (!old) return { error: 'missingorder' }
  const book = ctx.state.books.get(marketId)!
  const pos = book.take(old)
  ctx.state.openOrdersOf(old.owner).delete(old.oid)
  const released = acct.kind === 'balance' ? orderHold(ctx.state, old) : undefined
  const bad = validateOrder(ctx, acct, m, req, released)
  if (bad) {
    book.restore(old, pos)
    ctx.state.openOrdersOf(old.owner).set(old.oid, old)
    return { error: bad }
  }
  unlockRemaining(ctx, acct, old)
  old.remaining = 0n
  record(ctx, old, 'cancelled', true)
  return placeValidated(ctx, acct, m, req)
}
