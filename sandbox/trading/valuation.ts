import type { Order } from './book'
import { MARK_STALE_MS } from './defaults'
import type { Account, ChainState } from './state'
import type { MarketConfig } from './types'

/** Integer market arithmetic and credit-line valuation. */

const pow10 = (n: number): bigint => 10n ** BigInt(n)

/** Quote atoms of `qty` base-quantity atoms at `price` price atoms (exact by market validation). */
export function notional(state: ChainState, m: MarketConfig, price: bigint, qty: bigint): bigint {
  const qDec = state.assets.get(m.quote_asset_id)!.balance_decimals
  return (price * qty * pow10(qDec)) / pow10(m.price_decimals + m.base_quantity_decimals)
}

/** Base balance atoms of `qty` base-quantity atoms. */
export function baseAtoms(state: ChainState, m: MarketConfig, qty: bigint): bigint {
  const bDec = state.assets.get(m.base_asset_id)!.balance_decimals
  return qty * pow10(bDec - m.base_quantity_decimals)
}

/** What a resting order holds: the asset and atoms (bid: quote at its limit; ask: base). */
export function orderHold(state: ChainState, o: Order): { assetId: number; atoms: bigint } {
  const m = state.markets.get(o.marketId)!
  return o.side === 'bid'
    ? { assetId: m.quote_asset_id, atoms: notional(state, m, o.price, o.remaining) }
    : { assetId: m.base_asset_id, atoms: baseAtoms(state, m, o.remaining) }
}

export function isMarkFresh(state: ChainState, assetId: number, nowMs: number, staleMarks: boolean): boolean {
  const mark = state.marks.get(assetId)
  if (!mark || staleMarks) return false
  return nowMs - mark.sourceTsMs <= MARK_STALE_MS
}

export interface CreditView {
  /** per asset: settled position and pending exposure (<= 0) from resting orders */
  positions: Map<number, { actual: bigint; pending: bigint }>
  /** null when a nonzero position asset lacks a fresh mark */
  available: bigint | null
  /** null only when a position asset never had a mark */
  lastKnown: bigint | null
}

/** USD atoms of a signed quantity: longs haircut by the asset's LTV, floored (negatives round down). */
function usdValue(state: ChainState, assetId: number, qty: bigint, markUsd: bigint): bigint {
  const a = state.assets.get(assetId)!
  const scale = pow10(a.balance_decimals)
  if (qty >= 0n) return (qty * markUsd * BigInt(a.credit_ltv)) / (scale * 100n)
  const n = qty * markUsd
  const q = n / scale
  return n % scale === 0n ? q : q - 1n
}

/**
 * Credit valuation of an account, optionally with an extra (hypothetical) exposure or
 * position delta, as the admission and settle checks need.
 */
export function creditView(
  state: ChainState,
  acct: Account,
  nowMs: number,
  staleMarks: boolean,
  extra?: { assetId: number; pending?: bigint; actual?: bigint }[],
): CreditView {
  const credit = acct.credit!
  const positions = new Map<number, { actual: bigint; pending: bigint }>()
  const at = (id: number) => {
    let p = positions.get(id)
    if (!p) {
      p = { actual: 0n, pending: 0n }
      positions.set(id, p)
    }
    return p
  }
  for (const [id, q] of credit.positions) at(id).actual += q
  const open = state.openByOwner.get(acct.address)
  if (open) {
    for (const o of open.values()) {
      const h = orderHold(state, o)
      at(h.assetId).pending -= h.atoms
    }
  }
  for (const e of extra ?? []) {
    const p = at(e.assetId)
    p.pending += e.pending ?? 0n
    p.actual += e.actual ?? 0n
  }
  let available: bigint | null = credit.creditUsdAtoms
  let lastKnown: bigint | null = credit.creditUsdAtoms
  for (const [id, p] of positions) {
    const net = p.actual + p.pending
    if (net === 0n && p.actual === 0n) continue
    const mark = state.marks.get(id)
    if (!mark) {
      available = null
      lastKnown = null
      continue
    }
    const v = usdValue(state, id, net, mark.usdAtoms)
    if (lastKnown !== null) lastKnown += v
    if (available !== null) available = isMarkFresh(state, id, nowMs, staleMarks) ? available + v : null
  }
  return { positions, available, lastKnown }
}

/** Assets with a nonzero net position lacking a fresh mark. */
export function assetsMissingFreshMark(state: ChainState, view: CreditView, nowMs: number, staleMarks: boolean): number[] {
  const out: number[] = []
  for (const [id, p] of view.positions) {
    if (p.actual + p.pending !== 0n && !isMarkFresh(state, id, nowMs, staleMarks)) out.push(id)
  }
  return out
}

/** Whether a credit account may trade a market. */
export function creditMayTrade(acct: Account, m: MarketConfig): boolean {
  return acct.status === 'active' && (m.credit_trading || (acct.credit?.whitelist.includes(String(m.market_id)) ?? false))
}
