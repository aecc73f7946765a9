/**
 * The earn pool's records: balances per (user, asset), withdrawals, deposits and yield entries as
 * the pool keeps them (bigint atoms), the refusal it answers with, and its persisted form.
 */
import type { WithdrawalStatus, WithdrawType } from '../../main/core/wire/earn'

/** A refusal the handler turns into `{code, message}`. */
export class EarnReject extends Error {
  constructor(
    readonly code: 131002 | 131004 | 131006 | 201005,
    message: string,
  ) {
    super(message)
  }
}
export const invalid = (m: string) => new EarnReject(131004, m)

export interface BucketState {
  earn: bigint
  inQueue: bigint
  locked: bigint
  lifetimeDeposit: bigint
  lifetimeYield: bigint
  lifetimeWithdraw: bigint
  activeOperationId: string
}

export interface WithdrawalState {
  id: number
  operationId: string
  user: string
  userNonce: number
  type: WithdrawType
  assetId: number
  gross: bigint
  fee: bigint
  feeBps: number
  deadline: number
  claimableAt: number | null
  status: WithdrawalStatus
  createdAt: number
  /** when the current payout stage began (drives lazy progression) */
  stageSince: number
  coreTxHash: string | null
  feeCoreTxHash: string | null
  failureCode: string | null
  failureMessage: string | null
  claimedAt: number | null
  cancelledAt: number | null
  completedAt: number | null
  /** digest bound by the first claim attempt that reached the pool, whatever its fate */
  claimDigest: string | null
  /** admin hold: a non-terminal record carrying failure_code that does not move on its own */
  held?: boolean
}

export interface DepositState {
  id: number
  operationId: string
  user: string
  type: 'bridge_deposit' | 'direct_transfer'
  assetId: number
  amount: bigint
  status: 'credited' | 'rejected'
  coreHeight: number
  timestampMs: number
  srcChainId: number | null
  srcTxHash: string | null
  coreTxHash: string | null
}

export interface YieldState {
  id: number
  distributionId: string
  user: string
  assetId: number
  snapshotBalance: bigint
  amount: bigint
  appliedAt: number
}

export interface EarnFaults {
  /** every request answers 131002 (nothing executed) */
  unavailable: boolean
  /** writes answer 131006; `executed` applies the write first (outcome unknown to the caller) */
  timeout: null | 'executed' | 'not-executed'
  /** payouts reaching the transfer stage fail into `manual_review` */
  manualReview: boolean
}

export interface DepositInput {
  user: string
  assetId: number
  amount: bigint
  type?: 'bridge_deposit' | 'direct_transfer'
  /** force a rejection (otherwise rejected only when the asset has deposits disabled) */
  reject?: boolean
  srcChainId?: number
  /** where a direct transfer happened on the trading chain (its operation id names it) */
  at?: { height: number; txIndex: number; eventIndex: number }
}

export interface EarnSnapshot {
  version: 1
  nextId: number
  coreHeight: number
  bridgeNonce: number
  distributionSeq: number
  nextDistributionAt: number
  paused: boolean
  nonces: [string, number][]
  buckets: [string, [number, unknown][]][]
  withdrawals: unknown[]
  deposits: unknown[]
  yields: unknown[]
}

export interface PageQuery {
  assetId?: number
  beforeId?: number
  limit: number
}
