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

/** The action fields that name the other party of a write (main/core/wire/actions.ts). */
const PARTY_FIELDS = ['to', 'cash_account', 'margin_account', 'dst_address', 'target_address', 'agent'] as const

/**
 * The other party a signed body names (the recipient, the cash or margin account, the
 * destination, the activated address, the agent), read from the exact bytes journaled; null
 * when it names none or the body is not one of the desk's actions.
 */
export function counterpartyOf(body: string): Address | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return null
  }
  if (typeof parsed !== 'object' || parsed === null) return null
  const action = (parsed as { action?: unknown }).action
  const fields = (typeof action === 'object' && action !== null ? action : parsed) as Record<string, unknown>
  for (const k of PARTY_FIELDS) {
    const v = fields[k]
    if (typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v)) return v as Address
  }
  return null
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
    counterparty: counterpartyOf(s.body),
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
