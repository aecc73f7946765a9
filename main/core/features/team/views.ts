/** Team chain state (verified) as the contract's views: proposals, members, policy. Pure. */
import type {
  Address,
  TeamEffectView,
  TeamMembersView,
  TeamPolicyVersionView,
  TeamProposalView,
  TeamRole,
  TeamRuleView,
} from '../../../contract/types'
import { formatAtoms } from '../../money/decimal'
import { NO_UNITS, amountText, type UnitsBook } from './amounts'
import { USD_DECIMALS, countingApprovals, proposalStatus, unknownUsdNote, type Proposal, type Roster, type Rule } from '../../team'

const name = (roster: Roster, a: string) => roster.members.get(a)?.name ?? null
const holds = (roster: Roster, who: string, roles: readonly string[]) =>
  roster.members.get(who)?.roles.some((r) => roles.includes(r)) ?? false

export interface ViewerFacts {
  /** this operator's identity address (lower case), null without one */
  me: string | null
  now: number
  /** this desk's vault holds a key for the account (owner key or an agent of it) */
  canSignFor(account: string): boolean
}

/** Open and not yet approved by me, not mine, and I hold one of the rule's roles: the chain would accept my approval. */
export function canApprove(p: Proposal, roster: Roster, f: ViewerFacts): boolean {
  if (!f.me || p.initiator === f.me) return false
  const status = proposalStatus(p, roster, f.now)
  if (status !== 'open' && status !== 'approved') return false
  if (p.approvals.some((a) => a.by === f.me)) return false
  return holds(roster, f.me, p.needs.roles)
}

export function canReject(p: Proposal, roster: Roster, f: ViewerFacts): boolean {
  if (!f.me) return false
  const status = proposalStatus(p, roster, f.now)
  if (status !== 'open' && status !== 'approved') return false
  return p.initiator === f.me || holds(roster, f.me, p.needs.roles)
}

export function proposalView(p: Proposal, roster: Roster, f: ViewerFacts, units: UnitsBook = NO_UNITS): TeamProposalView {
  const status = proposalStatus(p, roster, f.now)
  const counting = new Set(countingApprovals(p, roster))
  const last = p.outcomes.at(-1)
  return {
    id: p.id,
    seq: p.seq.toString(),
    status,
    network: p.network,
    account: p.account as Address,
    kind: p.kind,
    cloid: p.cloid,
    title: p.title,
    usd: p.usd === null ? null : formatAtoms(p.usd, USD_DECIMALS),
    usdUnknown: unknownUsdNote(p),
    amount: amountText(p, units),
    destination: p.destination as Address | null,
    initiator: { address: p.initiator as Address, name: name(roster, p.initiator) },
    policyVersion: p.policyVersion,
    rule: p.rule,
    needs: { count: p.needs.count, roles: [...p.needs.roles] },
    approvals: p.approvals.map((a) => ({ address: a.by as Address, name: name(roster, a.by), at: a.at, counts: counting.has(a.by) })),
    rejection: p.rejection
      ? { address: p.rejection.by as Address, name: name(roster, p.rejection.by), reason: p.rejection.reason, at: p.rejection.at }
      : null,
    signed: p.signed ? { address: p.signed.by as Address, name: name(roster, p.signed.by), at: p.signed.at } : null,
    outcome: last ? { state: last.state, finalStatus: last.finalStatus, code: last.code, at: last.at } : null,
    at: p.at,
    expiresAt: p.expiresAt,
    canApprove: canApprove(p, roster, f),
    canReject: canReject(p, roster, f),
    canExecute: (status === 'approved' || (status === 'signed' && !last)) && p.replay !== undefined && f.canSignFor(p.account),
    mine: f.me !== null && p.initiator === f.me,
  }
}

export function membersView(roster: Roster, me: string | null): TeamMembersView {
  return {
    adminQuorum: roster.adminQuorum,
    members: [...roster.members.values()].map((m) => ({
      address: m.address,
      name: m.name,
      roles: [...m.roles] as TeamRole[],
      me: m.address === me,
    })),
  }
}

export function ruleView(r: Rule): TeamRuleView {
  const then: TeamEffectView =
    r.then.effect === 'approve' ? { effect: 'approve', count: r.then.count, roles: [...r.then.roles] } : { effect: r.then.effect }
  return {
    id: r.id,
    ...(r.kinds ? { kinds: [...r.kinds] } : {}),
    ...(r.accounts ? { accounts: r.accounts as Address[] } : {}),
    ...(r.groups ? { groups: [...r.groups] } : {}),
    ...(r.minUsd !== undefined ? { minUsd: formatAtoms(r.minUsd, USD_DECIMALS) } : {}),
    ...(r.minWindowUsd !== undefined ? { minWindowUsd: formatAtoms(r.minWindowUsd, USD_DECIMALS) } : {}),
    ...(r.destinations ? { destinations: r.destinations as Address[] } : {}),
    ...(r.direction ? { direction: r.direction } : {}),
    then,
  }
}

export function policyVersionView(v: {
  version: number
  seq: bigint
  digest: string
  policy: { rules: Rule[]; groups: Record<string, string[]> }
}): TeamPolicyVersionView {
  return {
    version: v.version,
    seq: v.seq.toString(),
    digest: v.digest,
    rules: v.policy.rules.map(ruleView),
    groups: groupsView(v.policy.groups),
  }
}

export const groupsView = (g: Record<string, string[]>): Record<string, Address[]> =>
  Object.fromEntries(Object.entries(g).map(([name, members]) => [name, [...members] as Address[]]))
