import * as v from 'valibot'
import { cloid, decimalStr, nonNegInt, timeMs, uint } from '../fields'

/**
 * A fill as /info returns it (`userFills`, `userFillsByTime`). `tid` is shared by both sides of
 * a trade and by the WebSocket frames; `side` is the querying owner's direction.
 */
export const FillSchema = v.looseObject({
  tid: uint,
  time: timeMs,
  side: v.nullable(v.picklist(['B', 'A'])),
  fee_asset_id: v.nullable(nonNegInt),
  /** Null on a no-fee fill before fee activation (with `fee_asset_id` and `fee_mode`). */
  fee: v.nullable(decimalStr),
  fee_mode: v.nullable(v.picklist(['balance', 'credit'])),
  market_id: v.optional(nonNegInt),
  coin: v.optional(v.string()),
  price: v.optional(decimalStr),
  px: v.optional(decimalStr),
  quantity: v.optional(decimalStr),
  sz: v.optional(decimalStr),
  oid: v.nullish(uint),
  cloid: v.nullish(cloid),
  block_height: v.optional(uint),
  height: v.optional(uint),
})
export type Fill = v.InferOutput<typeof FillSchema>
