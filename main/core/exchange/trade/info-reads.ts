import type { InfoClient } from '../info/client'
import * as T from '../info/types'
import type { QueryWindow, TradeReads } from './reconciler'

/**
 * TradeReads over the typed /info client. Every read goes through the host's scheduler in the
 * `reconcile` lane (the client schedules; the reconciler must not schedule again).
 */
export function infoTradeReads(info: InfoClient): TradeReads {
  const lane = { lane: 'reconcile' as const }
  return {
    async txStatusByCloid(user, cloid) {
      const r = await info.call(T.txStatusByCloid, { user, cloid }, lane)
      return { found: r.found, status: r.status ?? null, actionType: r.action_type ?? null }
    },
    async orderStatus(q) {
      const params = 'oid' in q ? { oid: q.oid } : { user: q.user, market_id: Number(q.marketId), cloid: q.cloid }
      const r = await info.call(T.orderStatus, params, lane)
      if (!r.found) return { found: false, status: null, filledQty: null }
      return { found: true, status: r.status, filledQty: r.filled_qty ?? null }
    },
    async userAgents(user) {
      const r = await info.call(T.userAgents, { user }, lane)
      return r.agents.map((a) => ({ slotId: a.slot_id, agent: a.agent, epoch: a.epoch === undefined || a.epoch === null ? null : String(a.epoch) }))
    },
    async openOrders(user, marketId) {
      const r = await info.call(T.openOrders, { user, market_id: Number(marketId) }, lane)
      return r.orders.map((o) => ({ oid: String(o.oid), cloid: o.cloid ?? null }))
    },
    async queryStatus() {
      const r = await info.call(T.queryStatus, {}, lane)
      return windowOf(r)
    },
    async withdrawNonces(user) {
      const rows = await info.call(T.withdraws, { user }, lane)
      return rows.flatMap((w) => (w.withdraw_nonce !== undefined ? [String(w.withdraw_nonce)] : []))
    },
  }
}

/** queryStatus fields (all null before any view exists) as the reconciler's window. */
export function windowOf(r: { query_height?: unknown; query_time_ms?: unknown; earliest_retained_height?: unknown }): QueryWindow {
  const big = (x: unknown) => (typeof x === 'bigint' ? x : typeof x === 'number' || (typeof x === 'string' && /^[0-9]+$/.test(x)) ? BigInt(x) : null)
  return { height: big(r.query_height), timeMs: typeof r.query_time_ms === 'number' ? r.query_time_ms : null, earliestRetainedHeight: big(r.earliest_retained_height) }
}

/**
 * For TradeSubmitter's `heightFloor`: the service's current height, read before signing. Any
 * height read before the send is a valid lower bound of the height the write executes at.
 */
export function queryHeightFloor(info: InfoClient): () => Promise<bigint | null> {
  return async () => windowOf(await info.call(T.queryStatus, {}, { lane: 'operator' })).height
}
