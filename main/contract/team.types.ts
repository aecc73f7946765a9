/** Team mode (issue 23): several operators, one PostgreSQL team store, four-eyes approvals. */

import type { Address, Decimal } from './common.types'

export const TEAM_ROLES = ['viewer', 'trader', 'approver', 'admin'] as const
export type TeamRole = (typeof TEAM_ROLES)[number]
/** Action kinds a team policy rule can name (core/team/policy.ts ACTION_KINDS). */
export const TEAM_ACTION_KINDS = [
  'settle',
  'repay',
  'transfer',
  'withdraw',
  'activation',
  'agent_approve',
  'agent_revoke',
  'agent_rotate',
  'earn_request',
  'earn_claim',
  'earn_cancel',
  'order',
  'cancel',
  'halt',
  'resume',
  'address_book',
  'limits',
  'key_export',
  'key_add',
  'key_remove',
  'vault_passphrase',
] as const
export type TeamActionKind = (typeof TEAM_ACTION_KINDS)[number]
/** Which way a guardrail change moves (core/team/policy.ts DIRECTIONS); a rule may match one (limits, address_book only). */
export const TEAM_RULE_DIRECTIONS = ['tighten', 'loosen'] as const
export type TeamRuleDirection = (typeof TEAM_RULE_DIRECTIONS)[number]

/**
 * off: no team configured (single operator, as before); connecting: the store is being opened and
 * the chain verified; live: verified and receiving pushes; unreachable: the store cannot be reached
 * (team writes refused, nothing lost); tampered: the chain does not verify (`broken` names the first bad entry).
 */
export type TeamLinkState = 'off' | 'connecting' | 'live' | 'unreachable' | 'tampered'

export interface TeamStatusView {
  configured: boolean
  state: TeamLinkState
  /** one human sentence about `state` ("team store unreachable since 12:01:04", "entry 17: signature ...") */
  detail: string
  /** the first entry that does not verify (state 'tampered'); seq as a decimal string */
  broken: { seq: string; reason: string } | null
  /** where the store is (no password): host, port, database, user, sslmode */
  store: { host: string; port: number; database: string; user: string; sslmode: string } | null
  teamId: string | null
  teamName: string | null
  /** this desk's operator: identity key address (null before one is created), name and roles in the verified roster */
  me: { address: Address | null; name: string | null; roles: TeamRole[] }
  /** verified entries and the head's seq/digest */
  chain: { length: number; headSeq: string | null; headDigest: string | null }
  policyVersion: number | null
  /** open proposals this operator may approve now */
  needsMyApproval: number
  /** open proposals this operator initiated, waiting on others */
  waitingOnOthers: number
}

export interface TeamMemberView {
  address: Address
  name: string
  roles: TeamRole[]
  /** this desk's operator */
  me: boolean
}

export interface TeamMembersView {
  adminQuorum: number
  members: TeamMemberView[]
}

/** A roster or policy change collecting its admin quorum (team.changes): each admin signs it on their own desk. */
export interface TeamChangeView {
  /** its change digest: what every admin signs */
  id: string
  kind: 'roster' | 'policy' | 'custody'
  /** what it does, in words */
  summary: string[]
  /** admins whose signature this desk verified */
  signers: { address: string; name: string | null }[]
  quorum: number
  /** why it can no longer be applied (the roster or policy moved on, or the stored row is bad); null while it can */
  stale: string | null
  signedByMe: boolean
  canSign: boolean
  at: number
}

export type TeamEffectView = { effect: 'allow' } | { effect: 'block' } | { effect: 'approve'; count: number; roles: TeamRole[] }

/** A policy rule: first match wins, no match blocks. USD amounts are decimal strings. */
export interface TeamRuleView {
  id: string
  kinds?: TeamActionKind[]
  accounts?: Address[]
  /** the policy's account groups it names: it matches an account in any of them (or in `accounts`) */
  groups?: string[]
  /** matches when the write's USD value is at least this */
  minUsd?: Decimal
  /** ... or when the rolling-window total including this write is at least this */
  minWindowUsd?: Decimal
  destinations?: Address[]
  /** limit and address-book changes in this direction only (removing a limit or adding an address loosens) */
  direction?: TeamRuleDirection
  then: TeamEffectView
}

export interface TeamPolicyVersionView {
  version: number
  seq: string
  digest: string
  rules: TeamRuleView[]
  /** account groups by name (signed with this version) */
  groups: Record<string, Address[]>
}

export interface TeamPolicyView {
  version: number | null
  rules: TeamRuleView[]
  /** account groups by name, as the rules name them */
  groups: Record<string, Address[]>
  /** the team's names for addresses (accounts, destinations), signed with the policy: the same on every desk */
  names: Record<string, string>
  /** every version, oldest first */
  history: TeamPolicyVersionView[]
}

export type TeamProposalStatus = 'open' | 'approved' | 'rejected' | 'expired' | 'signed' | 'final'

export interface TeamProposalView {
  /** the proposal entry's digest */
  id: string
  seq: string
  status: TeamProposalStatus
  network: string
  account: Address
  kind: TeamActionKind
  cloid: string
  title: string
  /** USD value at the initiator's marks (decimal string), null when the write moves no value or its value was unknown */
  usd: Decimal | null
  /** set when the value (or the account's 24 h total) was unknown when proposed: what to show instead of a value, never "none" or $0 */
  usdUnknown: string | null
  /** what it moves, in the asset's units with its symbol ("2,500 USDC"); null when it moves no amount */
  amount: string | null
  destination: Address | null
  initiator: { address: Address; name: string | null }
  policyVersion: number
  rule: string
  needs: { count: number; roles: TeamRole[] }
  /** every approval in the chain; `counts` false for one that no longer counts (removed member, role gone) */
  approvals: { address: Address; name: string | null; at: number; counts: boolean }[]
  rejection: { address: Address; name: string | null; reason: string; at: number } | null
  signed: { address: Address; name: string | null; at: number } | null
  /** the latest outcome (journal state or 'expired') */
  outcome: { state: string; finalStatus: string | null; code: string | null; at: number } | null
  at: number
  expiresAt: number
  /** this operator may approve / reject it now (the chain's own rules) */
  canApprove: boolean
  canReject: boolean
  /** approved, and this desk holds the signing key for its account: `team.execute` may run it */
  canExecute: boolean
  /** this operator initiated it */
  mine: boolean
}

export interface TeamPreviewView {
  title: string
  lines: string[]
}

/**
 * One field of the approver's review: what the proposal says beside what this desk reads itself
 * from the exact action (and computes now at its own marks). `unreadable`: this desk cannot read it
 * (said so, never counted as a difference).
 */
export interface TeamReviewField {
  key: 'kind' | 'network' | 'account' | 'signer' | 'asset' | 'amount' | 'destination' | 'usd' | 'rule' | 'cloid'
  label: string
  initiator: string | null
  mine: string | null
  state: 'same' | 'differs' | 'unreadable'
  note?: string
}

export interface TeamProposalDetail extends TeamProposalView {
  /** each field once: the initiator's reading beside this desk's own decoding of the exact action */
  review: TeamReviewField[]
  /** the team's names (signed in its policy) for the addresses this proposal involves */
  names: Record<string, string>
  /** the account is held by the team's shares: who holds one, how many sign, and whether this desk holds one */
  custody: { threshold: number; holders: { address: Address; name: string | null }[]; mine: boolean } | null
  /** the initiator's figures, as signed into the proposal */
  initiatorPreview: TeamPreviewView
  /**
   * The same write recomputed now by this desk from live data (never the initiator's figures alone);
   * null with `recomputeError` when it cannot be recomputed here (no session, a refused guardrail...).
   */
  recomputed: (TeamPreviewView & { computedAt: number; usd: Decimal | null }) | null
  recomputeError: string | null
  /** the exact action that will be signed (JSON) */
  action: Record<string, unknown>
  /** the same action as shown to the operator: its amount in the asset's units with the symbol, never atoms */
  actionShown: Record<string, unknown>
  /** the channel this write came from (replayed by `team.execute`) */
  channel: string | null
  /** `evidence`: what a desk that could not establish the outcome checked (e.g. a takeover's txStatusByCloid read). */
  outcomes: { address: Address; state: string; finalStatus: string | null; code: string | null; at: number; evidence?: string }[]
}

/** An account held by the team's shares (issue 32). */
export interface TeamCustodyView {
  account: Address
  version: number
  threshold: number
  holders: { address: Address; name: string | null }[]
  /** whether an offline recovery share exists (it is never stored by any desk) */
  recovery: boolean
  lastRelease: { at: number; holder: Address; proposalId: string } | null
  /** the latest refusal the chain names for the account (a holder released nothing, or the executing desk signed nothing) */
  lastRefusal: TeamCustodyRefusalView | null
}

export interface TeamCustodyRefusalView {
  at: number
  /** the member whose desk refused, and their name in the roster */
  by: Address
  byName: string | null
  side: 'release' | 'sign'
  code: string | null
  reason: string
  proposalId: string
}

export interface TeamCustodySplitView {
  account: Address
  version: number
  threshold: number
  holders: Address[]
  /** the recovery share file's checksum, to check the stored-away copy against */
  recoveryChecksum: string | null
  /** true: the custody entry is in the chain and the key left this vault; false: it waits for the other admins */
  applied: boolean
}

export interface TeamVerifyView {
  ok: boolean
  /** rows in the store */
  entries: number
  /** rows verified from genesis (the prefix before `broken`) */
  verified: number
  broken: { seq: string; reason: string } | null
  headSeq: string | null
  headDigest: string | null
  /**
   * The highest head this desk verified before (kept sealed in its vault); a store chain shorter
   * than it, or different at it, is a rollback or a fork and `ok` is false. Null before the first.
   */
  keptSeq?: string | null
  keptDigest?: string | null
}

/** Pushed as `state.team` on every verified change of the chain and every change of the link. */
export interface TeamEvent {
  status: TeamStatusView
  /** proposals, approvals or outcomes changed since the last push: re-read `team.proposals` */
  proposalsChanged: boolean
  /** the admin changes collecting signatures changed (made, signed, applied, dropped): re-read `team.changes` */
  changesChanged?: boolean
}
