import * as v from 'valibot'
import { defineInfo } from '../define'
import { reqAddress, reqId } from '../fields'
import { FillSchema } from './fill'

/**
 * `userFills`: fills in a block-height window (at most 10000 blocks, `limit` 1..500). A refused
 * window answers HTTP 200 with an in-band `error`, which the client raises as a typed error.
 */
export const userFills = defineInfo({
  type: 'userFills',
  request: v.strictObject({
    user: reqAddress,
    from_height: reqId,
    to_height: reqId,
    limit: v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(500)),
  }),
  toBody: (p) => ({ user: p.user, from_height: String(p.from_height), to_height: String(p.to_height), limit: p.limit }),
  response: v.looseObject({
    fills: v.array(FillSchema),
    limit: v.optional(v.number()),
    requested_limit: v.optional(v.number()),
    max_limit: v.optional(v.number()),
  }),
})
