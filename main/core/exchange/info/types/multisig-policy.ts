import * as v from 'valibot'
import { defineInfo } from '../define'

/** `multisigPolicy`: only the accounting scope (2) is queryable; other scopes give `InvalidMultisigScope`. */
export const multisigPolicy = defineInfo({
  type: 'multisigPolicy',
  request: v.strictObject({ scope: v.pipe(v.number(), v.safeInteger(), v.minValue(0)) }),
  response: v.variant('found', [
    v.looseObject({ found: v.literal(true), policy: v.unknown() }),
    v.looseObject({ found: v.literal(false), scope: v.number(), scope_name: v.nullish(v.string()) }),
  ]),
})
