/** The earn feature's views: the pool, its withdrawals, deposits and yield. */

import type { Address, Decimal } from './common.types'

/** An earn withdrawal request as checked (`earn.preview`): the fee and what the operator receives. */
export interface EarnCreatePreviewView {
  user: Address
  assetId: number
  symbol: string
  type: 'scheduled' | 'instant'
  gross: Decimal
  grossAtoms: string
  fee: Decimal
  feeBps: number
  net: Decimal
  /** Seconds until a scheduled withdrawal is claimable; null for instant. */
  waitSeconds: number | null
}

export interface EarnAssetView {
  assetId: number
  symbol: string
  earnBalance: Decimal
  inQueueBalance: Decimal
  withdrawLockedBalance: Decimal
  lifetimeDeposit: Decimal
  lifetimeYield: Decimal
  lifetimeWithdraw: Decimal
  activeWithdrawOperationId: string | null
  scheduledEnabled: boolean
  instantEnabled: boolean
  instantFeeBps: number
  pendingSeconds: number
  minWithdraw: Decimal
  maxWithdraw: Decimal
  projectedApy: string | null
}

export interface EarnWithdrawalView {
  operationId: string
  assetId: number
  symbol: string
  type: 'scheduled' | 'instant'
  gross: Decimal
  fee: Decimal
  net: Decimal
  status: string
  createdAt: number
  claimableAt: number | null
  canClaim: boolean
  canCancel: boolean
  needsAttention: boolean
  failureCode: string | null
}

export interface EarnOverviewView {
  address: Address
  paused: boolean
  nextUserNonce: string
  assets: EarnAssetView[]
  withdrawals: EarnWithdrawalView[]
  fetchedAt: number
}

export interface EarnPage<T> {
  items: T[]
  nextBeforeId: string | null
}

export interface EarnDepositView {
  id: string
  operationId: string
  type: string
  assetId: number
  amount: Decimal
  status: string
  timeMs: number | null
}

export interface EarnYieldView {
  id: string
  assetId: number
  snapshotBalance: Decimal
  yieldAmount: Decimal
  appliedAt: number
}
