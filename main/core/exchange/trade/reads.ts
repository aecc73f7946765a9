import * as v from 'valibot'
import { DeskError } from '../../errors/desk-error'
import { postJson, type HttpPoster } from './http-post'
import { windowOf } from './info-reads'
import type { TradeReads } from './reconciler'

/**
 * The few /info reads reconciliation needs, validated. Kept small on purpose: the full typed
 * /info client lives in exchange/info; this one only needs a URL and a poster.
 */

const id = v.union([v.pipe(v.number(), v.integer()), v.pipe(v.string(), v.regex(/^-?[0-9]+$/))])

const TxStatus = v.object({ found: v.boolean(), status: v.nullish(v.string()), action_type: v.nullish(v.string()) })
const OrderStatusRes = v.object({
  found: v.boolean(),
  status: v.nullish(v.string()),
  filled_qty: v.nullish(v.string()),
  order: v.optional(v.object({ status: v.nullish(v.string()), filled_qty: v.nullish(v.string()) })),
})
const Agents = v.object({ agents: v.array(v.object({ slot_id: v.number(), agent: v.nullable(v.string()), epoch: v.nullish(id) })) })
const QueryStatusRes = v.looseObject({ query_height: v.nullish(id), query_time_ms: v.nullish(v.number()), earliest_retained_height: v.nullish(id) })
const OpenOrders = v.object({ orders: v.array(v.object({ oid: id, cloid: v.nullish(v.string()) })) })

export class InfoReadError extends DeskError {}

export function httpTradeReads(infoUrl: string, post: HttpPoster = postJson, timeoutMs = 10_000): TradeReads {
  async function call<S extends v.GenericSchema>(body: Record<string, unknown>, schema: S): Promise<v.InferOutput<S>> {
    const res = await post(infoUrl, JSON.stringify(body), { timeoutMs, maxResponseBytes: 8 * 1024 * 1024 })
    let json: unknown
    try {
      json = JSON.parse(res.text)
    } catch {
      throw new InfoReadError('InfoBadResponse', `/info ${String(body.type)} answered HTTP ${res.status} with a body that is not JSON`, { type: String(body.type), status: res.status })
    }
    if (res.status === 429) throw new InfoReadError('RateLimited', `/info ${String(body.type)} was rate limited`, { type: String(body.type) })
    if (res.status !== 200) {
      const code = (json as { error?: { code?: unknown } })?.error?.code
      throw new InfoReadError(typeof code === 'string' ? code : 'InfoError', `/info ${String(body.type)} failed with HTTP ${res.status}`, { type: String(body.type), status: res.status })
    }
    const r = v.safeParse(schema, json)
    if (!r.success) throw new InfoReadError('InfoBadResponse', `/info ${String(body.type)} answered an unexpected shape: ${r.issues[0]?.message ?? ''}`, { type: String(body.type) })
    return r.output
  }
  return {
    async txStatusByCloid(user, cloid) {
      const r = await call({ type: 'txStatusByCloid', user, cloid }, TxStatus)
      return { found: r.found, status: r.status ?? null, actionType: r.action_type ?? null }
    },
    async orderStatus(q) {
      const body = 'oid' in q ? { type: 'orderStatus', oid: q.oid } : { type: 'orderStatus', user: q.user, market_id: q.marketId, cloid: q.cloid }
      const r = await call(body, OrderStatusRes)
      return { found: r.found, status: r.status ?? r.order?.status ?? null, filledQty: r.filled_qty ?? r.order?.filled_qty ?? null }
    },
    async userAgents(user) {
      const r = await call({ type: 'userAgents', user }, Agents)
      return r.agents.map((a) => ({ slotId: a.slot_id, agent: a.agent, epoch: a.epoch === undefined || a.epoch === null ? null : String(a.epoch) }))
    },
    async openOrders(user, marketId) {
      const r = await call({ type: 'openOrders', user, market_id: marketId }, OpenOrders)
      return r.orders.map((o) => ({ oid: String(o.oid), cloid: o.cloid ?? null }))
    },
    async queryStatus() {
      return windowOf(await call({ type: 'queryStatus' }, QueryStatusRes))
    },
  }
}
