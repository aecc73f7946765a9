/** `desk repay …`: reduce a credit account's short from a balance-mode account. */
import { previewSubmitGroup } from '../desk-write'

export default previewSubmitGroup({
  name: 'repay',
  summary: 'repay a credit account short from a balance-mode account',
  positionals: ['PAYING_ACCOUNT', 'CREDIT_ACCOUNT', 'ASSET', 'AMOUNT'],
  submitSummary: "repay AMOUNT of ASSET from PAYING_ACCOUNT toward CREDIT_ACCOUNT's short (asks to confirm)",
})
