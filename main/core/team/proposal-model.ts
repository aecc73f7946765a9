/**
 * What a proposal is: its entry kinds, who may propose and execute, the kinds recorded when allowed
 * outright, its outcome states, its shape as the chain holds it, and its status and quorum, computed
 * from the verified entries and the current roster (proposals.ts checks the entries themselves).
 */
import type { Hex } from 'viem'
import type { Canonical } from './canonical'
import type { ActionKind, Policy } from './policy'
import type { Role, Roster } from './roster'

export const PROPOSAL_ENTRY_KINDS = ['proposal', 'approval', 'rejection', 'signed', 'outcome'] as const
export type ProposalEntryKind = (typeof PROPOSAL_ENTRY_KINDS)[number]
export const isProposalEntryKind = (k: string): k is ProposalEntryKind => (PROPOSAL_ENTRY_KINDS as readonly string[]).includes(k)

/** Who may propose a write, and who may store its signed bytes or its outcome. */
export const INITIATOR_ROLES: readonly Role[] = ['trader', 'admin']
export const EXECUTOR_ROLES: readonly Role[] = ['trader', 'admin']
/**
 * A member's own vault changes (export a key, add or remove one, change the passphrase): every member
 * has a vault, so any member records them (an approver changing their passphrase too); the policy
 * says whether they need approvals first.
 */
export const VAULT_KINDS: readonly ActionKind[] = ['key_export', 'key_add', 'key_remove', 'vault_passphrase']
/**
 * Writes the policy allows outright that are still recorded in the chain when they are signed: a
 * proposal needing no approval (`needs.count` 0, judged `allow` by the rule it names), then its
 * signed bytes and outcome, like any proposal. So the rolling window counts them on every desk, the
 * audit log holds every value-moving write of the team, and another desk can finish one after a
 * crash from the stored bytes. Not recorded: orders and cancels (a trading desk's volume; their
 * notional leaves no account), an agent rotation's steps (no key to record them by), halt and resume.
 */
export const RECORDED_KINDS: readonly ActionKind[] = [
  'settle',
  'repay',
  'transfer',
  'withdraw',
  'activation',
  'agent_approve',
  'agent_revoke',
  'earn_request',
  'earn_claim',
  'earn_cancel',
  ...VAULT_KINDS,
]
/** How long a recorded allowed write may wait for its signed bytes before it expires (it is signed at once). */
export const RECORDED_TTL_MS = 10 * 60_000

/** A proposal lives at most this long (ms): a forgotten one must not stay executable for weeks. */
export const MAX_PROPOSAL_TTL_MS = 7 * 24 * 3600_000

/** Outcome states: the journal's submission states, plus `expired` (never signed). */
export const OUTCOME_STATES = [
  'signed',
  'sent',
  'accepted',
  'rejected',
  'failed',
  'unknown',
  'unresolved',
  'reconciled',
  'expired',
] as const
export type OutcomeState = (typeof OUTCOME_STATES)[number]
/** States after which nothing more happens to a proposal. */
const NOT_FINAL: readonly OutcomeState[] = ['signed', 'sent', 'unknown']
export const isFinalOutcome = (s: OutcomeState) => !NOT_FINAL.includes(s)

export interface ProposalBody {
  network: string
  exchange: string
  account: string
  /** the key that will sign (owner or agent), lower-case; null when not known at proposal time */
  signer: string | null
  kind: ActionKind
  /** exactly what will be signed, before nonce and expiry */
  action: { [key: string]: Canonical }
  cloid: string
  title: string
  /** the initiator's preview lines (approvers recompute their own) */
  preview: string[]
  /** USD atoms (USD_DECIMALS); null when the write moves no value */
  usd: bigint | null
  /** the rolling window's USD when proposed, this write included; null: unknown (judged at its worst case) */
  windowUsd: bigint | null
  destination: string | null
  policyVersion: number
  rule: string
  needs: { count: number; roles: Role[] }
  /** ms since epoch, as signed by the initiator */
  at: number
  expiresAt: number
  /** what the desk replays to run the same write once approved: the channel and its arguments (with the fixed cloid) */
  replay?: { channel: string; args: { [key: string]: Canonical } }
}

export interface Proposal extends ProposalBody {
  id: Hex
  seq: bigint
  initiator: string
  approvals: { by: string; seq: bigint; at: number }[]
  rejection: { by: string; reason: string; seq: bigint; at: number } | null
  signed: { by: string; body: string; nonce: string; seq: bigint; at: number } | null
  outcomes: {
    by: string
    state: OutcomeState
    finalStatus: string | null
    code: string | null
    /** what the desk checked (a takeover's reads), when the exchange could not confirm the outcome */
    evidence?: string
    /** found executed on the exchange before any signed bytes were stored (nothing was signed for it) */
    onExchange?: true
    seq: bigint
    at: number
  }[]
}

/** Longest evidence text an outcome entry carries. */
export const MAX_EVIDENCE_CHARS = 4000

export type ProposalStatus = 'open' | 'approved' | 'rejected' | 'expired' | 'signed' | 'final'

/** What the entry checks read: the state verified before the entry. */
export interface LifecycleState {
  roster: Roster | null
  policy: Policy | null
  proposals: ReadonlyMap<string, Proposal>
  /** cloid -> proposal id: a cloid is proposed once, ever */
  cloids: ReadonlyMap<string, string>
}

export const hasRole = (roster: Roster, who: string, roles: readonly Role[]) =>
  roster.members.get(who)?.roles.some((r) => roles.includes(r)) ?? false

/** Approvals that count now: by current members holding a role the rule names (never the initiator). */
export function countingApprovals(p: Proposal, roster: Roster): string[] {
  return p.approvals.filter((a) => a.by !== p.initiator && hasRole(roster, a.by, p.needs.roles)).map((a) => a.by)
}

export function quorumMet(p: Proposal, roster: Roster): boolean {
  return countingApprovals(p, roster).length >= p.needs.count
}

export function proposalStatus(p: Proposal, roster: Roster, now: number): ProposalStatus {
  const last = p.outcomes.at(-1)
  if (last && isFinalOutcome(last.state)) return last.state === 'expired' ? 'expired' : 'final'
  if (p.signed) return 'signed'
  if (p.rejection) return 'rejected'
  if (now >= p.expiresAt) return 'expired'
  return quorumMet(p, roster) ? 'approved' : 'open'
}

/** Is this a recorded allowed write (no approval needed), rather than a proposal that waits for approvals? */
export const isRecordedWrite = (p: Pick<ProposalBody, 'needs'>) => p.needs.count === 0
