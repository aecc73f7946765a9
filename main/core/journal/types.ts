/**
 * Data kept by the submission journal. Addresses are stored lower-case; nonces and ids are
 * decimal strings (u64 can exceed 2^53); times are Unix milliseconds.
 */

/** Which API a submission went to: the trading service's `/trade` or the earn pool. */
export type SubmissionChannel = 'trade' | 'earn'

/**
 * Life of a submission:
 * - `signed`: journaled with its exact signed body, not yet handed to the network. A crash
 *   here means it was never sent (the `sent` mark is written before the first byte goes out).
 * - `sent`: handed to the network; the answer is not recorded yet.
 * - `accepted` / `rejected`: the service answered (final).
 * - `unknown`: the outcome could not be observed (wait-budget timeout, 504, connection lost
 *   after the request was written); the reconciler resolves it by cloid / operation id.
 * - `failed`: reached execution and failed there (`code` says why; e.g. an over-settle). Final.
 * - `reconciled`: resolved after the fact; `finalStatus` holds the service's final status.
 * - `unresolved`: the reconciler could not settle it from the exchange's evidence (past the
 *   lookback window, or the evidence is ambiguous). `evidence` and `advice` say what was
 *   checked and what to check. No longer reconciled automatically; its cloid cannot be used
 *   again until an operator acknowledgement is journaled (`acknowledgedAt`).
 */
export type SubmissionState = 'signed' | 'sent' | 'accepted' | 'rejected' | 'failed' | 'unknown' | 'unresolved' | 'reconciled'

export const SUBMISSION_STATES: readonly SubmissionState[] = [
  'signed',
  'sent',
  'accepted',
  'rejected',
  'failed',
  'unknown',
  'unresolved',
  'reconciled',
]
/** States the reconciler still works on. */
export const UNRESOLVED_STATES: readonly SubmissionState[] = ['signed', 'sent', 'unknown']
/** States an operator must look at (reconciler pending, or unresolved). */
export const ATTENTION_STATES: readonly SubmissionState[] = ['signed', 'sent', 'unknown', 'unresolved']
export const FINAL_STATES: readonly SubmissionState[] = ['accepted', 'rejected', 'failed', 'reconciled']
/** Final statuses of a `reconciled` entry that mean "this write never executed". */
export const NOT_EXECUTED_STATUSES: readonly string[] = ['notexecuted', 'notsent']

export function isFinalState(s: SubmissionState): boolean {
  return (FINAL_STATES as readonly string[]).includes(s)
}

/** What is recorded before a submission is sent. */
export interface NewSubmission {
  channel: SubmissionChannel
  /** cloid (`0x` + 32 hex) for `/trade`, operation id for earn writes. */
  key: string
  network: string
  /** The owner account the action is for. */
  account: string
  /** The signing authority (owner or agent address). */
  signer: string
  /** Action type (`order`, `settle`, `createWithdrawal`, ...). */
  actionType: string
  /** One line for the operator ("settle 1.5 BTC to 0xabc…"). */
  summary: string
  /** Envelope nonce (trade) as a decimal string; null for earn writes. */
  nonce: string | null
  /** Business nonce: `withdraw_nonce` of a withdraw, `user_nonce` of an earn create; null otherwise. */
  businessNonce?: string | null
  /** The exact bytes sent (JSON text of the signed body); resent unchanged on retry. */
  body: string
  traceId?: string | null
  /**
   * A block height known to be at or below the service's height when the write was sent (a
   * lower bound read before sending). Proves later whether the write is still inside
   * `txStatusByCloid`'s lookback window. Null when unknown.
   */
  submitHeight?: string | null
}

export interface Submission extends Required<Omit<NewSubmission, 'businessNonce' | 'traceId' | 'submitHeight'>> {
  id: number
  businessNonce: string | null
  submitHeight: string | null
  /** What the reconciler checked (JSON text of `UnresolvedEvidence`), for an unresolved outcome. */
  evidence: string | null
  /** What the operator should check or do (failed / unresolved outcomes). */
  advice: string | null
  /** When an operator acknowledged an unresolved outcome (allows its cloid to be used again). */
  acknowledgedAt: number | null
  ackNote: string | null
  /** Order ids named by the write's answer or its reconciliation (search by oid). */
  oids: string[]
  /** The team proposal this write executed (team mode), null for a write no proposal governs. */
  proposalId: string | null
  state: SubmissionState
  /** The service's final status: `accepted`, an order status, a lowercase tx status, a withdrawal status... */
  finalStatus: string | null
  /** Error code (service code, leaf code, or a local classification such as `NodeUnreachable`). */
  code: string | null
  txHash: string | null
  traceId: string | null
  /** Raw response body of the last answer (JSON text), for audit. */
  response: string | null
  /** How many times the same bytes were handed to the network. */
  attempts: number
  createdAt: number
  updatedAt: number
  resolvedAt: number | null
}

/** One row of a submission's state history. */
export interface SubmissionEvent {
  submissionId: number
  at: number
  state: SubmissionState
  finalStatus: string | null
  code: string | null
  note: string | null
}

/** A state change applied to a submission. */
export interface SubmissionUpdate {
  state: SubmissionState
  finalStatus?: string | null
  code?: string | null
  txHash?: string | null
  traceId?: string | null
  response?: string | null
  /** Free text kept in the history row (e.g. "resent after Unavailable"). */
  note?: string | null
  /** Count one more hand-off to the network. */
  attempt?: boolean
  /** JSON text: what was checked (unresolved outcomes). */
  evidence?: string | null
  advice?: string | null
}

/** Filter for UI queries and exports. All fields optional; times are inclusive bounds in ms. */
export interface SubmissionFilter {
  network?: string
  account?: string
  signer?: string
  channel?: SubmissionChannel
  actionType?: string | string[]
  state?: SubmissionState | SubmissionState[]
  key?: string
  since?: number
  until?: number
  /** Newest first by default. */
  order?: 'newest' | 'oldest'
  limit?: number
  offset?: number
  /** Free text: part of a cloid, tx hash, trace id, account, summary or action type; digits only: an exact oid or nonce. */
  q?: string
}

/** Kinds of cached account state shown at start before the network answers. */
export type AccountStateKind = 'balances' | 'credit' | 'creditPositions' | 'agents' | 'earn' | 'status' | 'openOrders' | (string & {})

export interface CachedState<T = unknown> {
  network: string
  account: string
  kind: AccountStateKind
  value: T
  fetchedAt: number
}

/** One point of an account's credit-health history. USD figures are usd_atoms (10^8) strings. */
export interface CreditSample {
  at: number
  status: string | null
  creditUsdAtoms: string | null
  availableUsdAtoms: string | null
  lastKnownAvailableUsdAtoms: string | null
  /** Warning level as computed by the credit-health service (e.g. `ok`, `warn`, `critical`). */
  level: string | null
  /** Anything else worth charting (per-asset LTV contributions...). Plain JSON. */
  detail?: unknown
}

/** Nonce sequences the journal persists per (network, signer). */
export type NonceKind = 'envelope' | 'withdraw'

/** One recorded operator-policy event: a rule change, an address-book edit, an override, a halt. */
export interface PolicyEvent {
  id: number
  network: string
  at: number
  /** `policy.set`, `policy.pending`, `address.add`, `address.remove`, `override.priceBand`, `halt`, `resume`... */
  kind: string
  /** One line for the operator. */
  summary: string
  /** Plain JSON data (never a passphrase or key). */
  detail: unknown
}
