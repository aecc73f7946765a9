/**
 * Team mode (issue 23): a shared PostgreSQL team store, signed roster/policy/proposals. No channel
 * returns a secret; the store password is sealed in the vault, never in settings.
 */

import * as v from 'valibot'
import type { Address } from './common.types'
import type { WriteOutcome } from './journal.types'
import type { ExportFile } from './reports.types'
import type {
  TeamChangeView,
  TeamCustodySplitView,
  TeamCustodyView,
  TeamMembersView,
  TeamPolicyView,
  TeamProposalDetail,
  TeamProposalView,
  TeamStatusView,
  TeamVerifyView,
} from './team.types'
import { TEAM_ACTION_KINDS, TEAM_ROLES, TEAM_RULE_DIRECTIONS } from './team.types'
import { intent, query } from './common.channel'
import { address, filePath, none, passphrase } from './common.schemas'

const proposalId = v.pipe(v.string(), v.regex(/^0x[0-9a-f]{64}$/, 'a proposal id: 0x + 32 bytes hex (lower case)'))
const teamRoles = v.pipe(v.array(v.picklist(TEAM_ROLES)), v.minLength(1), v.maxLength(4))
const usdAmount = v.pipe(v.string(), v.maxLength(40), v.regex(/^(0|[1-9][0-9]*)(\.[0-9]{1,8})?$/, 'a USD amount, at most 8 decimals'))
const teamGroupName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, 'a group name: letters, digits, space, dot, dash, underscore; at most 64'),
)
/** Account groups a team policy's rules name: group name -> accounts (signed with the policy). */
const teamGroups = v.pipe(
  v.record(teamGroupName, v.pipe(v.array(address), v.minLength(1), v.maxLength(200))),
  v.check((g) => Object.keys(g).length <= 50, 'at most 50 account groups'),
)
/** The team's names for addresses (accounts and destinations), signed with the policy: the same on every desk. */
const teamNames = v.pipe(
  v.record(address, v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))),
  v.check((n) => Object.keys(n).length <= 500, 'at most 500 named addresses'),
)
const teamRule = v.object({
  id: v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(64),
    v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash, underscore'),
  ),
  kinds: v.optional(v.pipe(v.array(v.picklist(TEAM_ACTION_KINDS)), v.minLength(1), v.maxLength(TEAM_ACTION_KINDS.length))),
  accounts: v.optional(v.pipe(v.array(address), v.minLength(1), v.maxLength(200))),
  /** names of the policy's account groups (`team.policy.set` groups) */
  groups: v.optional(v.pipe(v.array(teamGroupName), v.minLength(1), v.maxLength(50))),
  minUsd: v.optional(usdAmount),
  minWindowUsd: v.optional(usdAmount),
  destinations: v.optional(v.pipe(v.array(address), v.minLength(1), v.maxLength(200))),
  direction: v.optional(v.picklist(TEAM_RULE_DIRECTIONS)),
  then: v.variant('effect', [
    v.object({ effect: v.literal('allow') }),
    v.object({ effect: v.literal('block') }),
    v.object({ effect: v.literal('approve'), count: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20)), roles: teamRoles }),
  ]),
})
const teamConnectionString = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(1000),
  v.regex(/^postgres(ql)?:\/\/[^\s]+$/, 'a postgresql:// connection string'),
)
const memberName = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))

export const teamChannels = {
  /** Team mode as this desk sees it now (also pushed as `state.team`). */
  'team.status': query<TeamStatusView>()(none),
  /**
   * Points this desk at a team store: the connection string (TLS per its sslmode) goes to settings,
   * the password is sealed in the vault (the vault passphrase confirms it). Opens the store and verifies the chain.
   */
  'team.configure': intent<TeamStatusView>()(
    v.object({ connectionString: teamConnectionString, password: v.pipe(v.string(), v.minLength(1), v.maxLength(1024)), passphrase }),
  ),
  /** The first admin: creates this vault's identity key if needed and writes the genesis (this operator, admin, quorum 1). */
  'team.init': intent<TeamStatusView>()(v.object({ teamName: memberName, name: memberName, passphrase })),
  /** Creates this vault's identity key if needed and returns its address, for an admin to add with `team.members.add`. */
  'team.join': intent<{ address: Address }>()(v.object({ passphrase })),
  /**
   * Leaves the team this vault is bound to: only once the team's verified roster no longer holds this
   * operator (the admins removed them, under their quorum). The vault passphrase confirms it.
   */
  'team.leave': intent<TeamStatusView>()(v.object({ passphrase })),
  /**
   * Puts an account's owner key under team custody (issue 32): split `threshold` of the holders'
   * shares (and one offline recovery share, written by main to `recoveryFile` when given), sealed to
   * each holder's identity key, under the admin quorum. The key then leaves this vault.
   */
  'team.custody.split': intent<TeamCustodySplitView>()(
    v.object({
      account: address,
      holders: v.pipe(v.array(address), v.minLength(2), v.maxLength(15)),
      threshold: v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(16)),
      recoveryFile: v.nullable(filePath),
    }),
  ),
  /**
   * Re-splits a team-held account to new holders (a member left, a desk was lost), sealed by this
   * desk: authorised by the admin quorum; the current holders release their shares to this desk, or
   * the offline recovery share (`recoveryShareFile`) stands in for one. The address stays.
   */
  'team.custody.resplit': intent<TeamCustodySplitView>()(
    v.object({
      account: address,
      holders: v.pipe(v.array(address), v.minLength(2), v.maxLength(15)),
      threshold: v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(16)),
      recoveryFile: v.nullable(filePath),
      recoveryShareFile: v.nullable(filePath),
    }),
  ),
  /** Each team-held account: its share holders, the threshold, and the last release. */
  'team.custody.status': query<TeamCustodyView[]>()(none),
  /** This member's co-signer rule: release a share for writes the verified team policy allows outright (off by default). */
  'team.custody.cosign': intent<{ coSign: boolean }>()(v.object({ on: v.boolean() })),
  'team.members': query<TeamMembersView>()(none),
  /**
   * Roster changes are signed by this operator (an admin). With an admin quorum above 1 the change waits
   * for the other admins (TeamChangeNeedsAdmins, details.changeId): each signs it with `team.changes.sign`.
   */
  'team.members.add': intent<TeamMembersView>()(v.object({ address, name: memberName, roles: teamRoles })),
  'team.members.remove': intent<TeamMembersView>()(v.object({ address })),
  'team.members.roles': intent<TeamMembersView>()(v.object({ address, roles: teamRoles })),
  /** How many admins must sign each roster or policy change (itself a roster change, signed by the quorum in force). */
  'team.quorum': intent<TeamMembersView>()(v.object({ adminQuorum: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)) })),
  /** Roster and policy changes collecting their admin quorum, as this desk verifies them. */
  'team.changes': query<TeamChangeView[]>()(none),
  /** Adds this admin's signature to a change; with the quorum reached, the change enters the chain. */
  'team.changes.sign': intent<{ applied: boolean; signatures: number; quorum: number }>()(v.object({ id: proposalId })),
  /** The current ordered rules (first match wins, no match blocks) and every version. */
  'team.policy': query<TeamPolicyView>()(none),
  /** A new policy version with these rules, signed by this operator (an admin; above quorum 1 it waits for the others, as roster changes do). */
  'team.policy.set': intent<TeamPolicyView>()(
    v.object({ rules: v.pipe(v.array(teamRule), v.maxLength(200)), groups: v.optional(teamGroups), names: v.optional(teamNames) }),
  ),
  /** needsMe: open, this operator may approve; waiting: open, initiated by this operator or waiting on others; history: the rest. */
  'team.proposals': query<TeamProposalView[]>()(
    v.object({
      view: v.picklist(['needsMe', 'waiting', 'history'] as const),
      kind: v.optional(v.picklist(TEAM_ACTION_KINDS)),
      account: v.optional(address),
    }),
  ),
  /** One proposal: the initiator's preview and this desk's recomputed one side by side, who approved when. */
  'team.proposal': query<TeamProposalDetail>()(v.object({ id: proposalId })),
  'team.approve': intent<TeamProposalView>()(v.object({ id: proposalId })),
  'team.reject': intent<TeamProposalView>()(
    v.object({ id: proposalId, reason: v.pipe(v.string(), v.trim(), v.minLength(3), v.maxLength(500)) }),
  ),
  /** The desk holding the signing key runs an approved proposal: the same write replayed through the pipeline, signed once. */
  'team.execute': intent<WriteOutcome>()(v.object({ id: proposalId })),
  /** Verifies the whole chain from genesis (no trusted head) and names the first bad entry. */
  'team.verify': query<TeamVerifyView>()(none),
  /** The team log as CSV, each entry with its hash. */
  'team.export': query<ExportFile>()(none),
} as const
