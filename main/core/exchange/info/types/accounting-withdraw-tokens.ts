import * as v from 'valibot'
import { defineInfo } from '../define'
import { decimalStr, noParams, nonNegInt, rowsEnvelope, uint } from '../fields'

export const WithdrawTokenSchema = v.looseObject({
  chain_id: uint,
  asset_id: nonNegInt,
  min_withdraw_atoms: uint,
  min_withdraw_amt: decimalStr,
})
export type WithdrawToken = v.InferOutput<typeof WithdrawTokenSchema>

/** `accountingWithdrawTokens`: withdrawable tokens and minimums, sorted by `(chain_id, asset_id)`. */
export const accountingWithdrawTokens = defineInfo({
  type: 'accountingWithdrawTokens',
  request: noParams,
  response: rowsEnvelope(['tokens', 'withdraw_tokens', 'accounting_withdraw_tokens', 'rows'], WithdrawTokenSchema),
})
