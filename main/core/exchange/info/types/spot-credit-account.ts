import * as v from 'valibot'
import { defineInfo } from '../define'
import { accountStatus, sint, userParams } from '../fields'

/**
 * `spotCreditAccount`. A non-credit address carries no credit line: `status` and the USD fields
 * are then absent or null (`found` false when the service says so); `isCreditLine` tells them apart.
 */
export const spotCreditAccount = defineInfo({
  type: 'spotCreditAccount',
  request: userParams,
  response: v.looseObject({
    found: v.optional(v.boolean()),
    status: v.nullish(accountStatus),
    credit_usd_atoms: v.nullish(sint),
    available_usd_atoms: v.nullish(sint),
    last_known_available_usd_atoms: v.nullish(sint),
    credit_trading_whitelisted_market_ids: v.optional(v.array(v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]*)$/))), []),
  }),
})

export type SpotCreditAccount = v.InferOutput<typeof spotCreditAccount.response>

export function isCreditLine(a: SpotCreditAccount): boolean {
  return a.found !== false && a.status != null && a.credit_usd_atoms != null
}
