/**
 * Mapping from core data (journal rows, service results) to the contract's plain views.
 * Amounts stay exact decimal strings; nothing here does arithmetic on money.
 */
import type {
  Address,
  EarnAssetView,
  EarnDepositView,
  EarnOverviewView,
  EarnWithdrawalView,
  EarnYieldView,
  PreviewView,
  SubmissionState as ViewState,
  SubmissionView,
  WriteOutcome as ViewOutcome,
} from '../../contract/types'
import type { Leaf } from '../exchange/trade/classify'
import type { Journal, Submission } from '../journal'
import { formatAtoms } from '../money/decimal'
import type { EarnOverview, WithdrawalView } from '../services/earn'
import type { TransferPreview } from '../services/settle-repay'
import type { DepositEntry, YieldEntry } from '../wire/earn'

/** The journal's `signed` (recorded, not yet handed to the network) is shown as `prepared`. */
function viewState(s: Submission['state']): ViewState {
  return s === 'signed' ? 'prepared' : s
}

export function submissionView(journal: Journal, s: Submission): SubmissionView {
  return {
    id: String(s.id),
    cloid: s.key,
    network: s.network,
    account: s.account as Address,
    signer: s.signer as Address,
    actionType: s.actionType,
    summary: s.summary,
    nonce: s.nonce,
    state: viewState(s.state),
    code: s.code,
    finalStatus: s.finalStatus,
    txHash: s.txHash,
    traceId: s.traceId,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    history: journal.history(s.id).map((e) => ({ state: viewState(e.state), code: e.code, atMs: e.at, note: e.note })),
  }
}

export function outcomeView(journal: Journal, journalId: number, leaves: readonly Leaf[] = []): ViewOutcome {
  const s = journal.get(journalId)
  if (!s) throw new Error(`journal entry ${journalId} vanished`)
  return {
    submission: submissionView(journal, s),
    leaves: leaves.map((l) => ({ kind: l.kind, code: l.kind === 'error' ? l.code : null, oid: l.kind === 'error' ? null : l.oid })),
  }
}

export function settleRepayPreviewView(p: TransferPreview, labels: (a: string) => string, network: string): PreviewView {
  const isSettle = p.kind === 'settle'
  const action: Record<string, unknown> = isSettle
    ? { type: 'settle', asset_id: String(p.asset.assetId), amount: p.amountAtoms, cash_account: p.to, cloid: '(new, assigned when signed)' }
    : { type: 'repay', asset_id: String(p.asset.assetId), amount: p.amountAtoms, margin_account: p.to, cloid: '(new, assigned when signed)' }
  return {
    title: isSettle ? `Settle ${p.amount} ${p.asset.symbol}` : `Repay ${p.amount} ${p.asset.symbol}`,
    summary: [
      `Network: ${network}`,
      `Signer (owner key): ${labels(p.from)} ${p.from}`,
      isSettle ? `Credit account ${labels(p.from)} settles into cash account ${labels(p.to)} ${p.to}` : `Cash account ${labels(p.from)} repays the short of credit account ${labels(p.to)} ${p.to}`,
      `Amount: ${p.amount} ${p.asset.symbol} (${p.amountAtoms} atoms at ${p.asset.decimals} decimals)`,
    ],
    action,
    effects: [
      { account: p.creditPosition.account as Address, label: `${labels(p.creditPosition.account)} credit position`, assetSymbol: p.asset.symbol, before: p.creditPosition.before, after: p.creditPosition.after },
      { account: p.cashAvailable.account as Address, label: `${labels(p.cashAvailable.account)} available`, assetSymbol: p.asset.symbol, before: p.cashAvailable.before, after: p.cashAvailable.after },
    ],
    warnings: p.notes,
  }
}

function withdrawalView(w: WithdrawalView): EarnWithdrawalView {
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

export function earnOverviewView(o: EarnOverview, extra: { nextUserNonce: string; limits: Map<number, { min: string; max: string }> }, now: number): EarnOverviewView {
  const assets: EarnAssetView[] = o.assets.map((a) => ({
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
    minWithdraw: extra.limits.get(a.assetId)?.min ?? '0',
    maxWithdraw: extra.limits.get(a.assetId)?.max ?? '0',
    projectedApy: a.projectedApy,
  }))
  return { address: o.user as Address, paused: o.paused, nextUserNonce: extra.nextUserNonce, assets, withdrawals: o.withdrawals.map(withdrawalView), fetchedAt: now }
}

export { withdrawalView as earnWithdrawalView }

export function depositView(d: DepositEntry, decimals: (assetId: number) => number): EarnDepositView {
  return {
    id: String(d.id),
    operationId: d.operation_id,
    type: d.deposit_type,
    assetId: d.asset_id,
    amount: formatAtoms(BigInt(d.amount), decimals(d.asset_id)),
    status: d.status,
    timeMs: d.core_event_timestamp_ms ?? null,
  }
}

export function yieldView(y: YieldEntry, decimals: (assetId: number) => number): EarnYieldView {
  return {
    id: String(y.id),
    assetId: y.asset_id,
    snapshotBalance: formatAtoms(BigInt(y.snapshot_balance), decimals(y.asset_id)),
    yieldAmount: formatAtoms(BigInt(y.yield_amount), decimals(y.asset_id)),
    appliedAt: y.applied_at_unix_ms,
  }
}
