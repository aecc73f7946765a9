/**
 * Maps the write side's results onto the IPC contract's view types (main/contract/types.ts), so
 * the handlers stay one line each. The journal's `signed` state is the contract's `prepared`.
 */
import type { Address, SubmissionState as ViewState, SubmissionView, WriteOutcome as WriteOutcomeView } from '../../../contract/types'
import type { Leaf } from '../../exchange/trade/classify'
import { outcomeOf, UNRESOLVED_STATES, type Journal, type Submission, type SubmissionFilter, type SubmissionState } from '../../journal'
import type { WriteOutcome } from '../../session'

export function viewState(s: SubmissionState): ViewState {
  return s === 'signed' ? 'prepared' : s
}

/** A proposal has no journal entry, so 'proposed' is not a journal filter. */
export function journalState(s: Exclude<ViewState, 'proposed'>): SubmissionState {
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
    outcome: outcomeOf(s).kind,
    code: s.code,
    finalStatus: s.finalStatus,
    advice: s.advice,
    evidence: s.evidence,
    acknowledgedAt: s.acknowledgedAt,
    txHash: s.txHash,
    traceId: s.traceId,
    oids: s.oids,
    proposalId: s.proposalId,
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
  state?: Exclude<ViewState, 'proposed'>
  unresolvedOnly?: boolean
  sinceMs?: number
  untilMs?: number
  limit?: number
  q?: string
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
  if (f.q !== undefined && f.q.trim() !== '') out.q = f.q.trim()
  return out
}

export function writeOutcomeView(journal: Journal, o: WriteOutcome, leaves: readonly Leaf[] = []): WriteOutcomeView {
  const s = journal.get(o.journalId)!
  return {
    submission: submissionView(journal, s),
    leaves: leaves.map((l) => ({ kind: l.kind, code: l.kind === 'error' ? l.code : null, oid: l.kind === 'error' ? null : l.oid })),
  }
}

/** Counts an account's writes whose outcome is not final yet (the overview's "pending" badge). */
export function pendingCounter(journal: Journal): (network: string, account: string) => number {
  return (network, account) => journal.count({ network, account: account.toLowerCase(), state: [...UNRESOLVED_STATES] })
}
