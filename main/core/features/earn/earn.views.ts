import type { Address, EarnOverviewView, EarnWithdrawalView } from '../../../contract/types'
import type { EarnOverview, WithdrawalView } from './earn.service'

export function earnWithdrawalView(w: WithdrawalView): EarnWithdrawalView {
  return {
    operationId: w.operationId,
    assetId: w.assetId,
    symbol: w.symbol,
    type: w.type,
    gross: w.gross,
    fee: w.fee,
    net: w.net,
    status: w.status,
    createdAt: w.createdAt,
    claimableAt: w.claimableAt,
    canClaim: w.claimable,
    canCancel: w.cancelable,
    needsAttention: w.needsAttention,
    failureCode: w.failure,
  }
}

export function earnOverviewView(o: EarnOverview, fetchedAt: number): EarnOverviewView {
  return {
    address: o.user as Address,
    paused: o.paused,
    nextUserNonce: String(o.nextUserNonce),
    assets: o.assets.map((a) => ({
      assetId: a.assetId,
      symbol: a.symbol,
      earnBalance: a.earnBalance,
      inQueueBalance: a.inQueue,
      withdrawLockedBalance: a.withdrawLocked,
      lifetimeDeposit: a.lifetimeDeposit,
      lifetimeYield: a.lifetimeYield,
      lifetimeWithdraw: a.lifetimeWithdraw,
      activeWithdrawOperationId: a.activeOperationId,
      scheduledEnabled: a.scheduledEnabled,
      instantEnabled: a.instantEnabled,
      instantFeeBps: a.instantFeeBps,
      pendingSeconds: a.pendingSeconds,
      minWithdraw: a.minWithdraw,
      maxWithdraw: a.maxWithdraw,
      projectedApy: a.projectedApy,
    })),
    withdrawals: o.withdrawals.map(earnWithdrawalView),
    fetchedAt,
  }
}
