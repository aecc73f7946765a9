import * as v from 'valibot'
import { defineInfo } from '../define'
import { decimalStr, nonNegInt, timeMs, uint } from '../fields'

export const BookLevelSchema = v.looseObject({ price: decimalStr, quantity: decimalStr, order_count: nonNegInt })
export type BookLevel = v.InferOutput<typeof BookLevelSchema>

/** `l2Book`: `found` false (unknown market) comes without `bids`/`asks`. */
export const l2Book = defineInfo({
  type: 'l2Book',
  request: v.strictObject({
    market_id: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
    depth: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(100))),
  }),
  response: v.variant('found', [
    v.looseObject({
      found: v.literal(true),
      bids: v.array(BookLevelSchema),
      asks: v.array(BookLevelSchema),
      query_time_ms: v.nullish(timeMs),
      last_update_height: v.nullish(uint),
      last_update_ts_ms: v.nullish(timeMs),
    }),
    v.looseObject({ found: v.literal(false), query_time_ms: v.nullish(timeMs) }),
  ]),
})
