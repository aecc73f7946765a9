import { formatAtoms } from '../../main/core/money/decimal'
import type { Order } from './book'
import type { ChainState, FillRecord } from './state'
import type { WsFill, WsOrder } from './types'

/** Display formatting of integer engine values into the spec's payload shapes. */

export function fmtPrice(state: ChainState, marketId: number, price: bigint): string {
  return formatAtoms(price, state.markets.get(marketId)!.price_decimals)
}

export function fmtQty(state: ChainState, marketId: number, qty: bigint): string {
  return formatAtoms(qty, state.markets.get(marketId)!.base_quantity_decimals)
}

export function fmtAsset(state: ChainState, assetId: number | null, atoms: bigint): string {
  return formatAtoms(atoms, (assetId === null ? undefined : state.assets.get(assetId)?.balance_decimals) ?? 8)
}

export function sideLetter(side: 'bid' | 'ask'): 'B' | 'A' {
  return side === 'bid' ? 'B' : 'A'
}

export function wsOrder(state: ChainState, o: Order, remaining: bigint = o.remaining): WsOrder {
  return {
    coin: String(o.marketId),
    side: sideLetter(o.side),
    limitPx: fmtPrice(state, o.marketId, o.price),
    sz: fmtQty(state, o.marketId, remaining),
    oid: o.oid,
    timestamp: o.timestampMs,
    origSz: fmtQty(state, o.marketId, o.origQty),
    cloid: o.cloid,
  }
}

export function wsFill(state: ChainState, f: FillRecord): WsFill {
  const out: WsFill = {
    coin: String(f.marketId),
    px: fmtPrice(state, f.marketId, f.price),
    sz: fmtQty(state, f.marketId, f.qty),
    side: f.side,
    time: f.timeMs,
    oid: f.oid,
    crossed: f.crossed,
    fee: fmtAsset(state, f.feeAssetId, f.fee),
    tid: f.tid,
    cloid: f.cloid,
  }
  // omitted only when the fill has no fee record (spec §6)
  if (f.feeAssetId !== null) out.feeToken = String(f.feeAssetId)
  return out
}

/** Average price of a fill set (sum of price*qty over qty), exact to 8 extra digits, trimmed. */
export function fmtAvgPrice(state: ChainState, marketId: number, sumPriceQty: bigint, qty: bigint): string {
  if (qty === 0n) return '0'
  const pd = state.markets.get(marketId)!.price_decimals
  const extra = 8
  const scaled = (sumPriceQty * 10n ** BigInt(extra)) / qty
  return formatAtoms(scaled, pd + extra)
}

/** Mid with one more decimal than price_decimals. */
export function fmtMid(state: ChainState, marketId: number, bid: bigint, ask: bigint): string {
  const pd = state.markets.get(marketId)!.price_decimals
  return formatAtoms((bid + ask) * 5n, pd + 1, { fixed: true })
}
