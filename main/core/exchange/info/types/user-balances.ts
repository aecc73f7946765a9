import * as v from 'valibot'
import { defineInfo } from '../define'
import { decimalStr, nonNegInt, rowsEnvelope, uint, userParams } from '../fields'

/** Per-asset `available` and `locked` (display decimals at the asset's `balance_decimals`). */
export const UserBalanceSchema = v.looseObject({
  asset_id: nonNegInt,
  symbol: v.optional(v.string()),
  available: decimalStr,
  locked: decimalStr,
  available_atoms: v.optional(uint),
  locked_atoms: v.optional(uint),
})
export type UserBalance = v.InferOutput<typeof UserBalanceSchema>

/** `userBalances`: a balance-mode account's per-asset balances. */
export const userBalances = defineInfo({
  type: 'userBalances',
  request: userParams,
  response: rowsEnvelope(['balances'], UserBalanceSchema),
})
