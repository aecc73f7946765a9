import * as v from 'valibot'
import { defineInfo } from '../define'
import { reqAddress, timeMs } from '../fields'
import { FillSchema } from './fill'

/** `userFillsByTime`: oldest first, at most 1000 per page; the start bound is inclusive. */
export const userFillsByTime = defineInfo({
  type: 'userFillsByTime',
  request: v.strictObject({ user: reqAddress, start_time_ms: timeMs, end_time_ms: v.optional(timeMs) }),
  response: v.looseObject({ fills: v.array(FillSchema) }),
})
