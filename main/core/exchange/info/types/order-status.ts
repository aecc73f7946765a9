import * as v from 'valibot'
import { defineInfo } from '../define'
import { cloid, decimalStr, reqAddress, reqId, uint } from '../fields'

export const ORDER_STATUSES = [
  'open',
  'partiallyfilledresting',
  'filled',
  'cancelled',
  'ioccancel',
  'fokcancel',
  'badalopx',
  'marketordernoliquidity',
  'insufficientspotcredit',
  'selftradepreventioncancel',
] as const

const OrderFields = {
  status: v.string(),
  filled_qty: v.nullish(decimalStr),
  oid: v.nullish(uint),
  cloid: v.nullish(cloid),
  tif: v.nullish(v.picklist(['gtc', 'ioc', 'fok', 'alo'])),
  order_type: v.nullish(v.picklist(['limit', 'market'])),
  owner_index: v.nullish(uint),
}

/**
 * `orderStatus` by `oid`, or by `user` + `market_id` + `cloid`. `found` false covers both a
 * refused order and a block not yet published. Order fields may sit at the top level or under
 * `order`; the result is flattened.
 */
export const orderStatus = defineInfo({
  type: 'orderStatus',
  request: v.union([
    v.strictObject({ oid: reqId }),
    v.strictObject({ user: reqAddress, market_id: v.pipe(v.number(), v.safeInteger(), v.minValue(0)), cloid }),
  ]),
  toBody: (p) => ('oid' in p ? { oid: String(p.oid) } : p),
  response: v.pipe(
    v.looseObject({ found: v.boolean(), order: v.optional(v.looseObject(OrderFields)) }),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const o = dataset.value
      if (!o.found) return { found: false as const }
      const flat = v.safeParse(v.looseObject(OrderFields), o.order ? { ...o, ...o.order } : o)
      if (!flat.success) {
        addIssue({ message: `orderStatus: ${flat.issues[0].message}` })
        return NEVER
      }
      return { found: true as const, ...flat.output }
    }),
  ),
})
