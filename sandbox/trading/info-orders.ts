/** POST /info handlers for orders and their history: open orders, fills, order and transaction status. */
import { OWNER_PARAM } from '../../main/core/wire/assumptions'
import type { Order } from './book'
import { RETAINED_BLOCKS } from './defaults'
import { fmtAsset, fmtPrice, fmtQty } from './format'
import { InfoError, cloidParam, earliest, infoError, intParam, marketIdParam, ok, user, type InfoHandlers } from './info-params'
import type { ChainState, FillRecord, OrderStatusRecord } from './state'

function httpFill(state: ChainState, f: FillRecord) {
  return {
    tid: f.tid,
    time: f.timeMs,
    block_height: f.height,
    market_id: f.marketId,
    // the taker order's record ages out with the retained window, and with it the direction
    side: f.height >= earliest(state) ? f.side : null,
    px: fmtPrice(state, f.marketId, f.price),
    sz: fmtQty(state, f.marketId, f.qty),
    oid: f.oid,
    cloid: f.cloid,
    crossed: f.crossed,
    fee_asset_id: f.feeAssetId,
    fee: fmtAsset(state, f.feeAssetId, f.fee),
    fee_mode: f.feeMode,
  }
}

function openOrderEntry(state: ChainState, o: Order, withMarket: boolean) {
  const base = {
    oid: o.oid,
    cloid: o.cloid,
    side: o.side,
    price: fmtPrice(state, o.marketId, o.price),
    original_qty: fmtQty(state, o.marketId, o.origQty),
    filled_qty: fmtQty(state, o.marketId, o.filled),
    remaining_qty: fmtQty(state, o.marketId, o.remaining),
    owner_index: o.ownerIndex,
    timestamp_ms: o.timestampMs,
  }
  return withMarket ? { market_id: o.marketId, ...base } : base
}

function orderStatusBody(state: ChainState, o: Order, status: string, timeMs: number) {
  return {
    found: true,
    status,
    oid: o.oid,
    cloid: o.cloid,
    user: o.owner,
    owner_index: o.ownerIndex,
    market_id: o.marketId,
    side: o.side,
    tif: o.tif,
    order_type: o.orderType,
    price: fmtPrice(state, o.marketId, o.price),
    original_qty: fmtQty(state, o.marketId, o.origQty),
    filled_qty: fmtQty(state, o.marketId, o.filled),
    remaining_qty: fmtQty(state, o.marketId, o.remaining),
    status_timestamp_ms: timeMs,
  }
}

function lookupOrder(state: ChainState, oid: number) {
  for (const book of state.books.values()) {
    const o = book.byOid.get(oid)
    if (o)
      return orderStatusBody(
        state,
        o,
        o.filled > 0n ? 'partiallyfilledresting' : 'open',
        state.statusByOid.get(oid)?.timeMs ?? o.timestampMs,
      )
  }
  const rec: OrderStatusRecord | undefined = state.statusByOid.get(oid)
  if (rec && rec.height >= earliest(state)) return orderStatusBody(state, rec.order, rec.status, rec.timeMs)
  return { found: false, status: null }
}

/** Orders, fills and transactions, within the retained window. */
export const orderHandlers: InfoHandlers = {
  openOrders: ({ state }, b) => {
    const u = user(b[OWNER_PARAM], OWNER_PARAM)
    const id = marketIdParam(b.market_id, true)
    const all = [...(state.openByOwner.get(u)?.values() ?? [])]
      .filter((o) => id === -1 || o.marketId === id)
      .sort((x, y) => x.marketId - y.marketId || x.oid - y.oid)
    const truncated = all.length > 500
    return ok({ user: u, market_id: id, orders: all.slice(0, 500).map((o) => openOrderEntry(state, o, id === -1)), truncated })
  },

  userFills: ({ state }, b) => {
    const u = user(b.user)
    const limitOk = (typeof b.limit === 'number' || typeof b.limit === 'string') && intParam(b.limit, 0xffffffff) !== null
    if (!limitOk) return infoError(400, 'InvalidFillsQuery', 'limit must be an integer from 1 to 500')
    const requested = intParam(b.limit, 0xffffffff)!
    const inBand = (code: string, message: string) => ok({ user: u, fills: [], error: { code, message } })
    if (requested === 0) return inBand('InvalidFillsQuery', 'limit must be positive')
    const to = b.to_height === undefined ? state.height : intParam(b.to_height)
    const from = b.from_height === undefined ? earliest(state) : intParam(b.from_height)
    if (to === null || from === null) return infoError(400, 'InvalidFillsQuery', 'from_height and to_height must be integers')
    if (from > to) return inBand('InvalidFillsQuery', 'from_height is above to_height')
    if (to - from + 1 > RETAINED_BLOCKS || from < earliest(state)) {
      return inBand(
        'HistoryWindowExceeded',
        `the window is the ${RETAINED_BLOCKS} most recent blocks (${earliest(state)}..${state.height})`,
      )
    }
    const limit = Math.min(requested, 500)
    const fills = (state.fills.get(u) ?? []).filter((f) => f.height >= from && f.height <= to).slice(0, limit)
    return ok({
      user: u,
      from_height: from,
      to_height: to,
      limit,
      requested_limit: requested,
      max_limit: 500,
      fills: fills.map((f) => httpFill(state, f)),
    })
  },

  userFillsByTime: ({ state }, b) => {
    const u = user(b.user)
    const start = intParam(b.start_time_ms)
    if (start === null) return infoError(400, 'InvalidFillsQuery', 'start_time_ms is required (integer milliseconds)')
    const end = b.end_time_ms === undefined ? state.timeMs : intParam(b.end_time_ms)
    if (end === null) return infoError(400, 'InvalidFillsQuery', 'end_time_ms must be integer milliseconds')
    if (start > end) return ok({ user: u, fills: [], error: { code: 'InvalidFillsQuery', message: 'start_time_ms is after end_time_ms' } })
    const fills = (state.fills.get(u) ?? []).filter((f) => f.timeMs >= start && f.timeMs <= end).slice(0, 1000)
    return ok({ user: u, fills: fills.map((f) => httpFill(state, f)) })
  },

  orderStatus: ({ state }, b) => {
    const oid = b.oid === undefined ? null : intParam(b.oid)
    if (oid !== null) return ok(lookupOrder(state, oid))
    if (b.user === undefined || b.market_id === undefined || b.cloid === undefined) {
      throw new InfoError('InvalidOrderStatusQuery', 'give a parseable oid, or user + market_id + cloid')
    }
    const u = user(b.user)
    const id = marketIdParam(b.market_id)
    const c = cloidParam(b.cloid)
    const found = state.oidByCloid.get(`${u}:${id}:${c}`)
    return ok(found === undefined ? { found: false, status: null } : lookupOrder(state, found))
  },

  txStatusByCloid: ({ state }, b) => {
    const u = user(b.user)
    if (b.cloid === undefined) throw new InfoError('InvalidInfoRequest', 'cloid is required')
    const c = cloidParam(b.cloid)
    const tx = state.txByCloid.get(`${u}:${c}`)
    if (!tx || tx.height < earliest(state)) return ok({ user: u, cloid: c, found: false, status: null, action_type: null })
    return ok({
      user: u,
      cloid: c,
      found: true,
      status: tx.status,
      action_type: tx.actionType,
      tx_hash: tx.txHash,
      block_height: tx.height,
      tx_index: tx.txIndex,
      nonce: tx.nonce,
    })
  },
}
