import * as v from 'valibot'
import { defineInfo } from '../define'
import { address, decimalStr, nonNegInt, rowsEnvelope, uint, userParams } from '../fields'

/**
 * A retained withdraw record. The spec names `withdraw_fee_atoms` (recorded, not deducted) and
 * `vault_address`; the rest is the sandbox's shape. Spec convention (§2): display values are
 * decimal strings, raw atoms sit in `*_atoms` fields, so `amount` is display and never atoms.
 */
export const WithdrawRecordSchema = v.looseObject({
  withdraw_fee_atoms: uint,
  vault_address: v.nullable(address),
  asset_id: v.optional(nonNegInt),
  amount: v.optional(decimalStr),
  amount_atoms: v.optional(uint),
  withdraw_nonce: v.optional(uint),
  block_height: v.optional(uint),
})
export type WithdrawRecord = v.InferOutput<typeof WithdrawRecordSchema>

/** `withdraws`: a user's retained withdraw records (3-day window). */
export const withdraws = defineInfo({
  type: 'withdraws',
  request: userParams,
  response: rowsEnvelope(['withdraws', 'records'], WithdrawRecordSchema),
})
