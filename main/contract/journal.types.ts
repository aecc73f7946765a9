/**
 * The journal's views: a write's submission and outcome as every host shows it, and the journal's
 * own records (the desk's `journal` commands).
 */

import type { Address } from './common.types'

/** 'proposed': the write waits for team approvals (WriteOutcome.proposalId); nothing was signed or journaled. */
export type SubmissionState =
  'prepared' | 'sent' | 'accepted' | 'rejected' | 'unknown' | 'reconciled' | 'failed' | 'unresolved' | 'proposed'

/** A write's outcome as every host shows it (core/journal/outcome.ts decides it from the journal). */
export type OutcomeKind = 'pending' | 'success' | 'rejected' | 'notexecuted' | 'failed' | 'unresolved'

export interface SubmissionView {
  id: string
  cloid: string
  network: string
  account: Address
  signer: Address
  actionType: string
  summary: string
  nonce: string | null
  state: SubmissionState
  /** success / failed / unresolved… never guessed: from the exchange's answer or the reconciler's evidence */
  outcome: OutcomeKind
  code: string | null
  finalStatus: string | null
  /** what the operator should do or check (failed, unresolved, rejected) */
  advice: string | null
  /** what the reconciler checked, when it could not settle the outcome (JSON text) */
  evidence: string | null
  /** when an operator acknowledged an unresolved outcome (its cloid may then be used again) */
  acknowledgedAt: number | null
  txHash: string | null
  traceId: string | null
  /** Order ids the write's answer or its reconciliation named. */
  oids?: string[]
  /** Team mode: the proposal this write executed (approved, or recorded as allowed outright); null when none. */
  proposalId?: string | null
  /**
   * The other party the signed action names, read from its exact body: a transfer's recipient, a
   * settle's cash account, a repay's margin account, a withdrawal's destination, an activated
   * address, an approved agent. Null when the action names none (orders, cancels, earn writes).
   */
  counterparty?: Address | null
  createdAt: number
  updatedAt: number
  history: { state: SubmissionState; code: string | null; atMs: number; note: string | null }[]
}

export interface WriteOutcome {
  /** With `submission.state` 'proposed' (id ''): what would be signed once approved; nothing was signed or sent. */
  submission: SubmissionView
  /** The team proposal the decision step made of this write (state 'proposed'), or the one it executes. */
  proposalId?: string
  /** Per-order leaves for order actions (per-order failures keep `accepted`). */
  leaves: { kind: 'open' | 'filled' | 'cancelled' | 'error'; code: string | null; oid: string | null }[]
}

/** The journal's own states (`signed`: journaled, not yet handed to the network; the screens call it 'prepared'). */
export const JOURNAL_RECORD_STATES = ['signed', 'sent', 'accepted', 'rejected', 'failed', 'unknown', 'unresolved', 'reconciled'] as const
export type JournalRecordState = (typeof JOURNAL_RECORD_STATES)[number]

/**
 * One journal record as the journal keeps it (the desk's `journal list`): addresses lower case,
 * nonces as decimal strings, times in Unix ms; without the signed body and raw response.
 */
export interface JournalRecordView {
  id: number
  channel: 'trade' | 'earn'
  key: string
  network: string
  account: string
  signer: string
  actionType: string
  summary: string
  nonce: string | null
  businessNonce: string | null
  traceId: string | null
  submitHeight: string | null
  evidence: string | null
  advice: string | null
  acknowledgedAt: number | null
  ackNote: string | null
  oids: string[]
  state: JournalRecordState
  finalStatus: string | null
  code: string | null
  txHash: string | null
  attempts: number
  /** Team mode: the proposal this write executed (approved, or recorded as allowed outright); null when none. */
  proposalId?: string | null
  createdAt: number
  updatedAt: number
  resolvedAt: number | null
}

export interface JournalRecordEvent {
  submissionId: number
  at: number
  state: JournalRecordState
  finalStatus: string | null
  code: string | null
  note: string | null
}

/** One record with its exact signed body (JSON text), the raw last answer and its state history. */
export interface JournalRecordDetail extends JournalRecordView {
  body: string
  response: string | null
  history: JournalRecordEvent[]
}
