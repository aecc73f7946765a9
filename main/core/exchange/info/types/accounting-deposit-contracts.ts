import * as v from 'valibot'
import { defineInfo } from '../define'
import { noParams, rowsEnvelope, uint } from '../fields'

export const DepositContractSchema = v.looseObject({ src_chain_id: uint })
export type DepositContract = v.InferOutput<typeof DepositContractSchema>

/** `accountingDepositContracts`: deposit contracts per source chain, sorted by `src_chain_id`. */
export const accountingDepositContracts = defineInfo({
  type: 'accountingDepositContracts',
  request: noParams,
  response: rowsEnvelope(['contracts', 'deposit_contracts', 'accounting_deposit_contracts', 'rows'], DepositContractSchema),
})
