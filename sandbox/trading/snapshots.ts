import type { Address } from 'viem'
import { fmtAsset, fmtMid, fmtPrice, fmtQty, wsFill, wsOrder } from './format'
import type { ChainState } from './state'
import type { WsAllMids, WsBbo, WsCreditPosition, WsFill, WsL2Book, WsLevel, WsOpenOrders, WsSpotCreditState, WsSpotState } from './types'
import { creditView } from './valuation'

/** Snapshot payloads of the WebSocket channels, built from committed state. */

export function parseMarketKey(state: ChainState, marketId: string): number | null {
  if (!/^(0|[1-9][0-9]{0,9})$/.test(marketId)) return null
  const id = Number(marketId)
  return state.markets.has(id) ? id : null
}

function levels(state: ChainState, marketId: number, side: 'bid' | 'ask', n: number): WsLevel[] {
  return state.books
    .get(marketId)!
    .depth(side, n)
    .map((l) => ({ px: fmtPrice(state, marketId, l.price), sz: fmtQty(state, marketId, l.qty), n: l.count }))
}

export function wsL2Book(state: ChainState, marketId: string, depth = 10): WsL2Book | null {
  const id = parseMarketKey(state, marketId)
  if (id === null) return null
  return { coin: String(id), levels: [levels(state, id, 'bid', depth), levels(state, id, 'ask', depth)], time: state.timeMs }
}

export function wsBbo(state: ChainState, marketId: string): WsBbo | null {
  const id = parseMarketKey(state, marketId)
  if (id === null) return null
  return { coin: String(id), time: state.timeMs, bbo: [levels(state, id, 'bid', 1)[0] ?? null, levels(state, id, 'ask', 1)[0] ?? null] }
}

export function wsAllMids(state: ChainState): WsAllMids {
  const mids: Record<string, string> = {}
  for (const [id, book] of [...state.books].sort((a, b) => a[0] - b[0])) {
    const bid = book.bids.best()
    const ask = book.asks.best()
    if (bid && ask) mids[String(id)] = fmtMid(state, id, bid.price, ask.price)
  }
  return { mids }
}

export function wsOpenOrders(state: ChainState, user: Address): WsOpenOrders {
  const u = user.toLowerCase() as Address
  const orders = [...(state.openByOwner.get(u)?.values() ?? [])].sort((a, b) => a.marketId - b.marketId || a.oid - b.oid)
  return { user: u, orders: orders.map((o) => wsOrder(state, o)) }
}

export function wsSpotState(state: ChainState, user: Address): WsSpotState {
  const u = user.toLowerCase() as Address
  const acct = state.accounts.get(u)
  if (!acct || acct.kind === 'credit') return { user: u, balances: [] }
  const balances = [...acct.balances]
    .sort((a, b) => a[0] - b[0])
    .map(([id, b]) => ({
      coin: state.assets.get(id)?.symbol ?? String(id),
      token: id,
      total: fmtAsset(state, id, b.available + b.locked),
      hold: fmtAsset(state, id, b.locked),
    }))
  return { user: u, balances }
}

export function creditPositions(state: ChainState, user: Address, nowMs: number, staleMarks: boolean): WsCreditPosition[] {
  const acct = state.accounts.get(user)
  if (!acct || acct.kind !== 'credit') return []
  const view = creditView(state, acct, nowMs, staleMarks)
  return [...view.positions]
    .sort((a, b) => a[0] - b[0])
    .map(([id, p]) => ({
      asset_id: id,
      symbol: state.assets.get(id)?.symbol ?? String(id),
      actual_display: fmtAsset(state, id, p.actual),
      actual_qty: p.actual.toString(),
      pending_exposure_display: fmtAsset(state, id, p.pending),
      pending_exposure_qty: p.pending.toString(),
    }))
}

export function wsSpotCreditState(state: ChainState, user: Address, nowMs: number, staleMarks: boolean): WsSpotCreditState {
  const u = user.toLowerCase() as Address
  const acct = state.accounts.get(u)
  if (!acct || acct.kind !== 'credit') return { user: u, authorized: false, positions: [] }
  return {
    user: u,
    authorized: true,
    status: acct.status,
    creditUsdAtoms: acct.credit!.creditUsdAtoms.toString(),
    positions: creditPositions(state, u, nowMs, staleMarks),
  }
}

export function wsRecentFills(state: ChainState, user: Address, n = 100): WsFill[] {
  const list = state.fills.get(user.toLowerCase() as Address) ?? []
  return list.slice(Math.max(0, list.length - n)).map((f) => wsFill(state, f))
}
