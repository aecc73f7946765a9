/**
 * Maps the write side's results onto the IPC contract's view types (main/contract/types.ts), so
 * the handlers stay one line each. The journal's `signed` state is the contract's `prepared`.
 */
import type {
  Address,
  EarnOverviewView,
  EarnWithdrawalView,
  PreviewView,
  SubmissionState as ViewState,
  SubmissionView,
  WriteOutcome as WriteOutcomeView,
} from '../../contract/types'
import type { Leaf } from '../exchange/trade/classify'
import type { Journal, Submission, SubmissionFilter, SubmissionState } from '../journal'
import type { EarnOverview, WithdrawalView } from './earn'
import type { TransferPreview } from './settle-repay'
import type { WriteOutcome } from './write-context'

export function viewState(s: SubmissionState): ViewState {
  return s === 'signed' ? 'prepared' : s
}

export function journalState(s: ViewState): SubmissionState {
  return s === 'prepared' ? 'signed' : s
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
    history: journal.history(s.id).map((h) => ({ state: viewState(h.state), code: h.code, atMs: h.at, note: h.note })),
  }
}

/** The contract's journal filter -> the journal's. */
export function journalFilter(f: {
  network?: string
  account?: string
  actionType?: string
  state?: ViewState
  unresolvedOnly?: boolean
  sinceMs?: number
  untilMs?: number
  limit?: number
}): SubmissionFilter {
  const out: SubmissionFilter = {}
  if (f.network !== undefined) out.network = f.network
  if (f.account !== undefined) out.account = f.account
  if (f.actionType !== undefined) out.actionType = f.actionType
  if (f.unresolvedOnly) out.state = ['signed', 'sent', 'unknown']
  else if (f.state !== undefined) out.state = journalState(f.state)
  if (f.sinceMs !== undefined) out.since = f.sinceMs
  if (f.untilMs !== undefined) out.until = f.untilMs
  if (f.limit !== undefined) out.limit = f.limit
  return out
}

export function writeOutcomeView(journal: Journal, o: WriteOutcome, leaves: readonly Leaf[] = []): WriteOutcomeView {
  const s = journal.get(o.journalId)!
  return {
    submission: submissionView(journal, s),
    leaves: leaves.map((l) => ({ kind: l.kind, code: l.kind === 'error' ? l.code : null, oid: l.kind === 'error' ? null : l.oid })),
  }
}

export function transferPreviewView(p: TransferPreview, network: string): PreviewView {
  const verb = p.kind === 'settle' ? 'Settle' : 'Repay'
  const action =
    p.kind === 'settle'
      ? { type: 'settle', asset_id: String(p.asset.assetId), amount: p.amountAtoms, cash_account: p.to }
      : { type: 'repay', asset_id: String(p.asset.assetId), amount: p.amountAtoms, margin_account: p.to }
  return {
    title: `${verb} ${p.amount} ${p.asset.symbol}`,
    summary: [`network ${network}`, `signer ${p.from} (owner key)`, `${p.kind} ${p.amount} ${p.asset.symbol} = ${p.amountAtoms} atoms of asset ${p.asset.assetId}`, `from ${p.from}`, `to ${p.to}`],
    action,
    effects: [
      { account: p.creditPosition.account as Address, label: 'credit position', assetSymbol: p.asset.symbol, before: p.creditPosition.before, after: p.creditPosition.after },
      { account: p.cashAvailable.account as Address, label: 'available', assetSymbol: p.asset.symbol, before: p.cashAvailable.before, after: p.cashAvailable.after },
    ],
    warnings: p.notes,
  }
}

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
