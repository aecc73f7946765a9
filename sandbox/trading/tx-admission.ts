/**
 * Account checks at admission for order-book writes: a write the account could never execute
 * (frozen, oracle out, below the minimum notional, short of balance, duplicate cloid) is refused
 * before it reaches a block. Cancels always pass.
 */
import type { BatchItem, Replacement } from '../../main/core/wire/actions'
import { parseDecimal } from '../../main/core/money/decimal'
import type { ParsedEnvelope } from './envelope'
import type { PlaceRequest } from './matching'
import { forcedOracle } from './oracle-status'
import type { ServiceCore } from './service-core'
import type { Account } from './state'
import type { MarketConfig } from './types'
import { assetsMissingFreshMark, baseAtoms, creditView, notional } from './valuation'

export function isCancelOnly(item: BatchItem): boolean {
  return item.type === 'cancel' || item.type === 'cancelAll'
}

/** The order as the matching engine takes it; null when price or size does not parse at the market's decimals. */
export function toPlaceRequest(m: MarketConfig, o: Replacement | (Replacement & { market_id: string })): PlaceRequest | null {
  try {
    return {
      side: o.side === 'bid' || o.side === 'buy' ? 'bid' : 'ask',
      orderType: o.order_type,
      tif: o.tif,
      price: parseDecimal(o.price, m.price_decimals),
      qty: parseDecimal(o.quantity, m.base_quantity_decimals),
      cloid: o.cloid ?? null,
    }
  } catch {
    return null
  }
}

/** The refusal code for this account and write, or null when it may be queued. */
export function accountAdmission(core: ServiceCore, acct: Account, p: ParsedEnvelope): string | null {
  const { state, faults, now } = core
  const a = p.action
  const items: BatchItem[] =
    a.type === 'batch' ? a.items : a.type === 'order' || a.type === 'modify' || a.type === 'cancel' || a.type === 'cancelAll' ? [a] : []
  if (items.every(isCancelOnly)) return null
  if (acct.status === 'frozen') return acct.kind === 'credit' ? 'SpotCreditAccountFrozen' : 'AccountFrozen'
  if (acct.kind === 'credit') {
    // stale marks are judged per asset below (OracleMarkPriceMissing); this is the forced outage
    if (forcedOracle(core).status !== 'available') return 'OracleUnavailable'
    for (const it of items) {
      if (it.type === 'cancel' || it.type === 'cancelAll') continue
      const m = state.markets.get(Number(it.market_id))
      if (!m) continue
      const view = creditView(state, acct, now(), faults.staleMarks, [
        { assetId: m.base_asset_id, pending: 1n },
        { assetId: m.quote_asset_id, pending: 1n },
      ])
      if (assetsMissingFreshMark(state, view, now(), faults.staleMarks).length > 0) return 'OracleMarkPriceMissing'
    }
  }
  if (a.type === 'order') {
    const m = state.markets.get(Number(a.market_id))
    if (!m) return null
    const req = toPlaceRequest(m, a)
    // zero price or size is a `tick` / `lotsize` leaf at execution, not a notional problem
    if (!req || req.price === 0n || req.qty === 0n) return null
    const quote = state.assets.get(m.quote_asset_id)
    if (quote?.min_quote_notional_atoms !== undefined && notional(state, m, req.price, req.qty) < quote.min_quote_notional_atoms) {
      return 'MinTradeSpotNtl'
    }
    if (acct.kind === 'balance') {
      const assetId = req.side === 'bid' ? m.quote_asset_id : m.base_asset_id
      const need = req.side === 'bid' ? notional(state, m, req.price, req.qty) : baseAtoms(state, m, req.qty)
      if ((acct.balances.get(assetId)?.available ?? 0n) < need) return 'InsufficientSpotBalance'
    }
    if (req.cloid) {
      const c = req.cloid.toLowerCase()
      for (const o of state.openByOwner.get(acct.address)?.values() ?? []) {
        if (o.marketId === m.market_id && o.cloid?.toLowerCase() === c) return 'DuplicateCloid'
      }
    }
  }
  return null
}
