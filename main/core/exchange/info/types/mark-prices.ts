import * as v from 'valibot'
import { defineInfo } from '../define'
import { nonNegInt, rowsEnvelope, timeMs, uint } from '../fields'

/** A mark: positive USD price scaled by 10^8, with the upstream feed timestamp. */
export const MarkPriceSchema = v.looseObject({
  asset_id: nonNegInt,
  usd_atoms: v.pipe(
    uint,
    v.check((x) => x > 0n, 'a mark is positive'),
  ),
  source_ts_ms: timeMs,
})
export type MarkPrice = v.InferOutput<typeof MarkPriceSchema>

/** `markPrices`: marks sorted by `asset_id`; omit `asset_ids` for all of them. */
export const markPrices = defineInfo({
  type: 'markPrices',
  request: v.optional(v.strictObject({ asset_ids: v.optional(v.array(nonNegInt)) }), {}),
  response: rowsEnvelope(['mark_prices', 'marks', 'markPrices', 'prices'], MarkPriceSchema),
})
