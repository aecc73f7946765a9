/**
 * Transfers, settles, repays, withdrawals and activations. `withdraw.preview` is a group of its own so
 * the assembled contract keeps its order (main/contract/channels.ts).
 */

import * as v from 'valibot'
import type { WriteOutcome } from './journal.types'
import type { PreviewView } from './transfers.types'
import { intent, query } from './common.channel'
import { address, assetId, cloid, decimal, idString } from './common.schemas'

/** `cloid`: the desk's `--cloid` (a client order id the operator chose; generated when absent). */
const settleArgs = v.object({ creditAccount: address, cashAccount: address, assetId, amount: decimal, cloid: v.optional(cloid) })
const repayArgs = v.object({ cashAccount: address, creditAccount: address, assetId, amount: decimal, cloid: v.optional(cloid) })
const transferArgs = v.object({ from: address, to: address, assetId, amount: decimal, cloid: v.optional(cloid) })
const withdrawArgs = v.object({
  account: address,
  assetId,
  amount: decimal,
  dstChainId: idString,
  dstAddress: address,
  cloid: v.optional(cloid),
})
const activateArgs = v.object({ account: address, target: address, feeAssetId: assetId, cloid: v.optional(cloid) })

export const transfersChannels = {
  'settle.preview': query<PreviewView>()(settleArgs),
  'settle.submit': intent<WriteOutcome>()(settleArgs),
  'repay.preview': query<PreviewView>()(repayArgs),
  'repay.submit': intent<WriteOutcome>()(repayArgs),
  'transfer.preview': query<PreviewView>()(transferArgs),
  'transfer.submit': intent<WriteOutcome>()(transferArgs),
  'withdraw.submit': intent<WriteOutcome>()(withdrawArgs),
  'activate.submit': intent<WriteOutcome>()(activateArgs),
} as const

export const withdrawPreviewChannels = {
  /** What a withdrawal would do, from live state, with the age of the data behind it. */
  'withdraw.preview': query<PreviewView>()(withdrawArgs),
} as const
