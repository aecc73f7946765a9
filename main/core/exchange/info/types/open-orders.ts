import { OWNER_PARAM } from '../../../wire/assumptions'
import * as v from 'valibot'
import { defineInfo } from '../define'
import { cloid, decimalStr, int, nonNegInt, reqAddress, timeMs, uint } from '../fields'

export const OpenOrderSchema = v.looseObject({
  oid: uint,
  cloid: v.nullish(cloid),
  original_qty: decimalStr,
  filled_qty: decimalStr,
  remaining_qty: decimalStr,
  owner_index: v.nullish(uint),
  market_id: v.optional(nonNegInt),
  side: v.optional(v.string()),
  price: v.optional(decimalStr),
  timestamp_ms: v.optional(timeMs),
})
export type OpenOrder = v.InferOutput<typeof OpenOrderSchema>

/** `openOrders`: one market, or -1 for every market (at most 500 rows, then `truncated`). */
export const openOrders = defineInfo({
  type: 'openOrders',
  request: v.strictObject({ [OWNER_PARAM]: reqAddress, market_id: v.pipe(v.number(), v.safeInteger(), v.minValue(-1)) }),
  response: v.looseObject({ market_id: v.optional(int), orders: v.array(OpenOrderSchema), truncated: v.boolean() }),
})
