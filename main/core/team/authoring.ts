/**
 * Making the next entry: genesis for a new team, then roster and policy changes on top of the
 * verified state. Each change is applied here first, so a desk never asks admins to sign an entry
 * every other desk would refuse. Signing and appending are the caller's (the quorum may sign on
 * several desks).
 */
import { custodyFromPayload, custodyPayload, resplitFromPayload, sealFromPayload, type CustodyRecord } from './custody/record'
import { bytesToHex, type Hex } from 'viem'
import { randomBytes } from 'node:crypto'
import { canonicalJson } from './canonical'
import type { TeamState } from './chain'
import { ZERO_HASH, entryDigest, unsignedEntry, type UnsignedEntry } from './entry'
import { teamBadInput } from './errors'
import { policyFromPayload, refuseGatedHalt } from './policy'
import { applyLifecycleEntry, type ProposalEntryKind } from './proposals'
import { applyRosterChanges, rosterFromGenesis, type MemberInput, type RosterChange } from './roster'

export interface GenesisInput {
  teamName: string
  adminQuorum: number
  members: MemberInput[]
  /** default: 32 random bytes */
  teamId?: Hex
}

export function genesisEntry(input: GenesisInput): { teamId: Hex; entry: UnsignedEntry } {
  const teamId = (input.teamId ?? bytesToHex(randomBytes(32))).toLowerCase() as Hex
  const payload = {
    teamId,
    teamName: input.teamName,
    adminQuorum: input.adminQuorum,
    members: input.members.map((m) => ({ ...m, address: m.address.toLowerCase() })),
  }
  rosterFromGenesis(JSON.parse(canonicalJson(payload)))
  return { teamId, entry: unsignedEntry(0n, ZERO_HASH, 'genesis', payload) }
}

function next(state: TeamState): { seq: bigint; prev: Hex } {
  if (!state.head || !state.roster) throw teamBadInput('the team chain has no verified genesis yet')
  return { seq: state.head.seq + 1n, prev: state.head.digest }
}

/**
 * Roster and policy changes name their basis (the last genesis, roster or policy entry), so they are
 * signed as changes (entry.ts): the admins of a quorum may sign them on their own desks, one after
 * the other, while proposals keep appending entries.
 */
function basisOf(state: TeamState): Hex {
  if (!state.governance) throw teamBadInput('the team chain has no verified genesis yet')
  return state.governance
}

/** An account put under team custody, or re-split (custody/record.ts): checked as every desk will check it. */
export function custodyEntry(state: TeamState, record: CustodyRecord): UnsignedEntry {
  const { seq, prev } = next(state)
  const e = unsignedEntry(seq, prev, 'custody', { basis: basisOf(state), ...custodyPayload(record) })
  custodyFromPayload(JSON.parse(e.payload), state.roster!, state.custody)
  return e
}

/** A re-split authorised by the admin quorum: the next version's holders and threshold, and who seals it. */
export function custodyResplitEntry(
  state: TeamState,
  r: { account: string; version: number; threshold: number; holders: string[]; recovery: boolean; sealer: string },
): UnsignedEntry {
  const { seq, prev } = next(state)
  const { account, ...resplit } = r
  const e = unsignedEntry(seq, prev, 'custody', { basis: basisOf(state), custodyOf: account, resplit })
  resplitFromPayload(JSON.parse(e.payload), state.roster!, state.custody, ZERO_HASH)
  return e
}

/** The seal of a pending re-split, by its sealer alone: the new shares' holders, indices and digest. */
export function custodySealEntry(state: TeamState, record: CustodyRecord, sealer: string): UnsignedEntry {
  const { seq, prev } = next(state)
  const { account, threshold: _t, ...seal } = record
  const e = unsignedEntry(seq, prev, 'custody', { custodyOf: account, seal })
  sealFromPayload(JSON.parse(e.payload), sealer.toLowerCase(), state.custodyPending)
  return e
}

export function rosterEntry(state: TeamState, changes: RosterChange[]): UnsignedEntry {
  const { seq, prev } = next(state)
  const e = unsignedEntry(seq, prev, 'roster', { basis: basisOf(state), changes })
  applyRosterChanges(state.roster!, JSON.parse(e.payload))
  return e
}

/** `rules` as stored: amounts as decimal strings (policy.ts). */
export function policyEntry(
  state: TeamState,
  rules: unknown[],
  groups: Record<string, string[]> = {},
  names: Record<string, string> = {},
): UnsignedEntry {
  const { seq, prev } = next(state)
  const version = (state.policy?.version ?? 0) + 1
  refuseGatedHalt(rules)
  // Groups and names only when there are some: a policy without them keeps the payload it always had.
  const e = unsignedEntry(seq, prev, 'policy', {
    basis: basisOf(state),
    version,
    rules,
    ...(Object.keys(groups).length ? { groups } : {}),
    ...(Object.keys(names).length ? { names } : {}),
  })
  policyFromPayload(JSON.parse(e.payload), version - 1)
  return e
}

/**
 * A proposal, approval, rejection, signed or outcome entry by `author` (one signature), checked
 * against the verified state as every desk will check it: a refusal here is the reason a desk would give.
 */
export function lifecycleEntry(state: TeamState, kind: ProposalEntryKind, payload: unknown, author: string): UnsignedEntry {
  const { seq, prev } = next(state)
  const e = unsignedEntry(seq, prev, kind, payload)
  applyLifecycleEntry(state, kind, JSON.parse(e.payload), author.toLowerCase(), entryDigest(state.roster!.teamId, e), seq)
  return e
}

/** A change collected under an older head, placed at the current one (its signatures do not cover the position). */
export function atHead(state: TeamState, change: { kind: 'roster' | 'policy' | 'custody'; payload: string }): UnsignedEntry {
  const { seq, prev } = next(state)
  return { seq, prev, kind: change.kind, payload: change.payload }
}
