import * as v from 'valibot'
import { defineInfo } from '../define'
import { address, nonNegInt, rowsEnvelope, uint, userParams } from '../fields'

export const WithdrawRecordSchema = v.looseObject({
  withdraw_fee_atoms: uint,
  vault_address: v.nullable(address),
  asset_id: v.optional(nonNegInt),
  amount: v.optional(uint),
  withdraw_nonce: v.optional(uint),
  block_height: v.optional(uint),
})
export type WithdrawRecord = v.InferOutput<typeof WithdrawRecordSchema>

/** `withdraws`: a user's retained withdraw records (3-day window). */
export const withdraws = defineInfo({ type: 'withdraws', request: userParams, response: rowsEnvelope(['withdraws', 'records'], WithdrawRecordSchema) })
