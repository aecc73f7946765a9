import * as v from 'valibot'
import { defineInfo } from '../define'
import { accountStatus as status, uint, userParams } from '../fields'

/** `accountStatus`: `found` once the account exists; `status` and `account_index` null before. */
export const accountStatus = defineInfo({
  type: 'accountStatus',
  request: userParams,
  response: v.looseObject({
    found: v.boolean(),
    status: v.nullable(status),
    account_index: v.nullable(uint),
    /** not in the spec; read when a service reports it */
    account_type: v.nullish(v.picklist(['balance', 'credit'])),
  }),
})
