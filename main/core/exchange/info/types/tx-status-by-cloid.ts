import * as v from 'valibot'
import { defineInfo } from '../define'
import { cloid, reqAddress } from '../fields'

/**
 * `txStatusByCloid`: the latest retained transaction for a cloid of this authority. `status` is
 * the committed outcome, or a lowercase execution error (`invalidsettle`), or `failed`.
 */
export const txStatusByCloid = defineInfo({
  type: 'txStatusByCloid',
  request: v.strictObject({ user: reqAddress, cloid }),
  response: v.looseObject({ found: v.boolean(), status: v.nullish(v.string()), action_type: v.nullish(v.string()) }),
})
