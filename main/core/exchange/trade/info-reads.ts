import type { InfoClient } from '../info/client'
import * as T from '../info/types'
import type { TradeReads } from './reconciler'

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
  }
}
