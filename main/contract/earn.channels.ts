/** The earn feature's channels. */

import * as v from 'valibot'
import type { EarnCreatePreviewView, EarnDepositView, EarnOverviewView, EarnPage, EarnWithdrawalView, EarnYieldView } from './earn.types'
import { intent, query } from './common.channel'
import { address, assetId, decimal } from './common.schemas'

const operationId = v.pipe(
  v.string(),
  v.maxLength(200),
  v.regex(/^withdraw:0x[0-9a-fA-F]{40}:[0-9]+$/, 'must be withdraw:<address>:<nonce>'),
)
const earnCreateArgs = v.object({ account: address, assetId, amount: decimal, type: v.picklist(['scheduled', 'instant'] as const) })
/**
 * `cloid` on a create: the operation id it must get (`withdraw:<user>:<user_nonce>`), as an approved
 * team proposal replays it; refused typed when the pool's next user nonce has moved since.
 */
const earnCreateWriteArgs = v.object({
  ...earnCreateArgs.entries,
  cloid: v.optional(v.pipe(v.string(), v.regex(/^withdraw:0x[0-9a-fA-F]{40}:[0-9]{1,15}$/, 'must be withdraw:<address>:<nonce>'))),
})
const earnOpArgs = v.object({ account: address, operationId })
const earnPageArgs = v.object({
  account: address,
  assetId: v.optional(assetId),
  beforeId: v.optional(v.pipe(v.string(), v.maxLength(40))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(200))),
})

export const earnChannels = {
  'earn.overview': query<EarnOverviewView>()(v.object({ account: address })),
  'earn.withdrawals': query<EarnPage<EarnWithdrawalView>>()(earnPageArgs),
  'earn.deposits': query<EarnPage<EarnDepositView>>()(earnPageArgs),
  'earn.yield': query<EarnPage<EarnYieldView>>()(earnPageArgs),
  'earn.create': intent<EarnWithdrawalView>()(earnCreateWriteArgs),
  /** A withdrawal request checked against the pool: the fee and what the operator receives; signs nothing. */
  'earn.preview': query<EarnCreatePreviewView>()(earnCreateArgs),
  'earn.claim': intent<EarnWithdrawalView>()(earnOpArgs),
  'earn.cancel': intent<EarnWithdrawalView>()(earnOpArgs),
} as const
