/** `desk settle …`: move value out of a credit account's long into a balance-mode cash account. */
import { previewSubmitGroup } from '../desk-write'

export default previewSubmitGroup({
  name: 'settle',
  summary: 'settle a credit account long into a cash account',
  positionals: ['CREDIT_ACCOUNT', 'CASH_ACCOUNT', 'ASSET', 'AMOUNT'],
  submitSummary: 'settle AMOUNT of ASSET from CREDIT_ACCOUNT to CASH_ACCOUNT (asks to confirm)',
})
