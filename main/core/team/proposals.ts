/**
 * The proposal lifecycle as chain entries, each signed by one operator's identity key:
 *   proposal  -> approval* | rejection -> signed -> outcome+
 *                                      \-> outcome{state: 'expired'} (never signed)
 * A proposal's id is its entry digest, so an approval names exactly one proposal and cannot be
 * moved onto another. Every check here is pure and runs against the state verified before the
 * entry (roster, policy, proposals); the chain verifier refuses the entry with the reason thrown.
 * Quorum is always computed from the verified entries and the current roster, never from a flag:
 * an approver removed from the roster (or who lost the role) stops counting.
 */
import { proposalKey } from './proposal-key'
import type { Hex } from 'viem'
import { canonicalJson, type Canonical } from './canonical'
import { evaluate, judgedUsd, usdReadingOf, type ActionKind } from './policy'
import { bad, isObj, keys, parseProposalBody, str, time, usdText, type Obj } from './proposal-body'
import {
  EXECUTOR_ROLES,
  INITIATOR_ROLES,
  MAX_EVIDENCE_CHARS,
  MAX_PROPOSAL_TTL_MS,
  OUTCOME_STATES,
  RECORDED_KINDS,
  RECORDED_TTL_MS,
  VAULT_KINDS,
  countingApprovals,
  hasRole,
  isFinalOutcome,
  isRecordedWrite,
  quorumMet,
  type LifecycleState,
  type OutcomeState,
  type Proposal,
  type ProposalBody,
  type ProposalEntryKind,
} from './proposal-model'
import { isSettingsKind, settingsChangeOf, settingsDirection } from './settings'
import { rollingWindowUsd } from './window'

export {
  EXECUTOR_ROLES,
  INITIATOR_ROLES,
  MAX_EVIDENCE_CHARS,
  MAX_PROPOSAL_TTL_MS,
  OUTCOME_STATES,
  PROPOSAL_ENTRY_KINDS,
  RECORDED_KINDS,
  RECORDED_TTL_MS,
  VAULT_KINDS,
  countingApprovals,
  isFinalOutcome,
  isProposalEntryKind,
  isRecordedWrite,
  proposalStatus,
  quorumMet,
  type LifecycleState,
  type OutcomeState,
  type Proposal,
  type ProposalBody,
  type ProposalEntryKind,
  type ProposalStatus,
} from './proposal-model'
export { parseProposalBody, proposalPayload } from './proposal-body'

const anyMemberMay = (kind: ActionKind) => VAULT_KINDS.includes(kind)
const proposalRef = (o: Obj) => {
  const v = o.proposal
  if (typeof v !== 'string' || !/^0x[0-9a-f]{64}$/.test(v)) return bad('proposal must be a proposal id (its entry digest)')
  return v
}

/** A proposal still waiting or approved at `at` (refuses what is rejected, signed, final or expired). */
function requireOpen(p: Proposal, at: number): void {
  if (p.rejection) bad(`proposal ${p.id.slice(0, 10)}… was rejected`)
  if (p.signed) bad(`proposal ${p.id.slice(0, 10)}… is already signed (entry ${p.signed.seq})`)
  if (p.outcomes.length > 0) bad(`proposal ${p.id.slice(0, 10)}… already has an outcome`)
  if (at < p.at) bad('dated before its proposal')
  if (at >= p.expiresAt) bad(`proposal ${p.id.slice(0, 10)}… expired at ${new Date(p.expiresAt).toISOString()}`)
}

/**
 * An action as compared between a proposal and the bytes signed for it, canonical. A withdrawal's
 * `withdraw_nonce` is assigned when it is signed (the proposal holds a placeholder): it is left out;
 * everything else (asset, amount, destination, cloid, ...) must be the same.
 */
function comparable(action: Record<string, unknown>, kind: ActionKind): string {
  const { withdraw_nonce: _signingTime, ...rest } = action
  // An API key approval's key is generated in the vault once the write is allowed (approvers approve
  // "a new key in slot N of this owner"): the slot, owner and type must match, the key cannot yet.
  if (kind === 'agent_approve' || kind === 'agent_rotate') delete rest.agent
  return canonicalJson(rest)
}
const approvedAction = (action: Record<string, unknown>, kind: ActionKind) => comparable(action, kind)

/** The action a /trade envelope carries, comparable (null: not an envelope with an action). */
function sentAction(body: string, kind: ActionKind): string | null {
  try {
    const env = JSON.parse(body) as { action?: unknown }
    return isObj(env) && isObj(env.action) ? comparable(env.action, kind) : null
  } catch {
    return null
  }
}

function findProposal(s: LifecycleState, o: Obj): Proposal {
  const id = proposalRef(o)
  const p = s.proposals.get(id)
  if (!p) return bad(`names proposal ${id.slice(0, 10)}…, which is not in the chain before it`)
  return p
}

/** A settings proposal's direction, from the exact change it carries (writes have none). */
function directionOf(b: { kind: ActionKind; action: { [key: string]: Canonical } }) {
  const change = isSettingsKind(b.kind) ? settingsChangeOf(b.action) : null
  return change ? settingsDirection(change) : undefined
}

/**
 * A write the policy allowed outright, recorded as it is signed: a recorded kind, allowed by the
 * rule it names under the current policy, with the window total every desk computes from the chain
 * before it (an initiator cannot understate it to pass under a window rule).
 */
function recordedWrite(s: LifecycleState, b: ProposalBody, id: Hex, seq: bigint, signer: string): Proposal {
  if (!RECORDED_KINDS.includes(b.kind)) bad(`${b.kind} writes are not recorded without approvals`)
  if (b.expiresAt - b.at > RECORDED_TTL_MS) bad(`a recorded allowed write expires within ${RECORDED_TTL_MS / 60_000} minutes`)
  const window = rollingWindowUsd(s, { ...b, usdAtoms: b.usd }, b.at, usdReadingOf(b))
  const shown = (v: bigint | null) => (v === null ? 'unknown' : `${usdText(v)} USD`)
  if (b.windowUsd !== window) bad(`window total ${shown(b.windowUsd)}, the chain before it gives ${shown(window)}`)
  const d = judged(s, b)
  if (d.effect !== 'allow' || d.rule !== b.rule)
    bad(`policy version ${b.policyVersion} does not allow this write outright (rule ${d.rule ?? 'none'}: ${d.effect})`)
  return newProposal(b, id, seq, signer)
}

/** The current policy's decision on a proposal's write, from the figures it carries, read as its author read them. */
function judged(s: LifecycleState, b: ProposalBody) {
  return evaluate(s.policy!.rules, {
    kind: b.kind,
    account: b.account,
    usd: judgedUsd(b.kind, b.usd, usdReadingOf(b)),
    windowUsd: b.windowUsd,
    destination: b.destination ?? undefined,
    direction: directionOf(b),
  })
}

const newProposal = (b: ProposalBody, id: Hex, seq: bigint, initiator: string): Proposal => ({
  ...b,
  id,
  seq,
  initiator,
  approvals: [],
  rejection: null,
  signed: null,
  outcomes: [],
})

/**
 * Checks one lifecycle entry by `signer` (lower-case, its signature already verified) against the
 * state before it and returns the proposal as it stands after it. Throws TeamBadInput with the reason.
 */
export function applyLifecycleEntry(
  s: LifecycleState,
  kind: ProposalEntryKind,
  payload: Canonical,
  signer: string,
  id: Hex,
  seq: bigint,
): Proposal {
  const roster = s.roster
  if (!roster) return bad('no roster yet')
  if (!roster.members.has(signer)) return bad(`signed by ${signer}, who is not a member at this point`)
  if (!isObj(payload)) return bad(`a ${kind} payload must be an object`)
  switch (kind) {
    case 'proposal': {
      const b = parseProposalBody(payload)
      if (!anyMemberMay(b.kind) && !hasRole(roster, signer, INITIATOR_ROLES))
        bad(`${signer} may not propose (roles ${INITIATOR_ROLES.join(' or ')})`)
      if (!s.policy || s.policy.version !== b.policyVersion)
        bad(`judged under policy version ${b.policyVersion}, the current one is ${s.policy?.version ?? 'none'}`)
      if (b.expiresAt <= b.at || b.expiresAt - b.at > MAX_PROPOSAL_TTL_MS) bad('expiry must be after the proposal and within 7 days')
      if (s.cloids.has(proposalKey(b.kind, b.cloid))) bad(`cloid ${b.cloid} was already proposed`)
      if (isRecordedWrite(b)) return recordedWrite(s, b, id, seq, signer)
      const d = judged(s, b)
      if (d.effect !== 'approve' || d.rule !== b.rule || d.count !== b.needs.count || d.roles.join() !== [...b.needs.roles].join()) {
        bad(`policy version ${b.policyVersion} does not require these approvals for this write (rule ${d.rule ?? 'none'}: ${d.effect})`)
      }
      return newProposal(b, id, seq, signer)
    }
    case 'approval': {
      keys(payload, ['proposal', 'policyVersion', 'at'])
      const p = findProposal(s, payload)
      if (isRecordedWrite(p)) bad('a write the policy allowed outright takes no approvals')
      const at = time(payload, 'at')
      requireOpen(p, at)
      if (payload.policyVersion !== p.policyVersion)
        bad(`approval bound to policy version ${String(payload.policyVersion)}, the proposal was judged under ${p.policyVersion}`)
      if (s.policy?.version !== p.policyVersion)
        bad(`the policy changed since the proposal (now version ${s.policy?.version}): it must be proposed again`)
      if (signer === p.initiator) bad('the initiator cannot approve their own proposal')
      if (p.approvals.some((a) => a.by === signer)) bad(`${signer} already approved this proposal`)
      if (!hasRole(roster, signer, p.needs.roles)) bad(`${signer} holds none of the roles the rule names (${p.needs.roles.join(', ')})`)
      return { ...p, approvals: [...p.approvals, { by: signer, seq, at }] }
    }
    case 'rejection': {
      keys(payload, ['proposal', 'reason', 'at'])
      const p = findProposal(s, payload)
      const at = time(payload, 'at')
      const reason = typeof payload.reason === 'string' ? payload.reason.trim() : ''
      if (reason === '' || reason.length > 500) bad('a rejection needs a reason (at most 500 characters)')
      requireOpen(p, at)
      if (signer !== p.initiator && !hasRole(roster, signer, p.needs.roles)) bad(`${signer} may not reject this proposal`)
      return { ...p, rejection: { by: signer, reason, seq, at } }
    }
    case 'signed': {
      keys(payload, ['proposal', 'body', 'nonce', 'at'])
      const p = findProposal(s, payload)
      const at = time(payload, 'at')
      requireOpen(p, at)
      if (!anyMemberMay(p.kind) && !hasRole(roster, signer, EXECUTOR_ROLES))
        bad(`${signer} may not execute (roles ${EXECUTOR_ROLES.join(' or ')})`)
      if (anyMemberMay(p.kind) && signer !== p.initiator) bad(`a vault change is recorded by the member whose vault it is`)
      if (s.policy?.version !== p.policyVersion) bad(`the policy changed since the proposal (now version ${s.policy?.version})`)
      if (!quorumMet(p, roster))
        bad(`signed without its quorum: ${countingApprovals(p, roster).length} of ${p.needs.count} approvals count`)
      const body = str(payload, 'body', 100_000)
      const nonce = str(payload, 'nonce', 40)
      // /trade bytes carry the action itself: it must be the approved one (an earn request's body is the pool's own format).
      if (!p.kind.startsWith('earn_') && sentAction(body, p.kind) !== approvedAction(p.action, p.kind))
        bad('the signed bytes do not carry the approved action (their action differs from the proposal)')
      return { ...p, signed: { by: signer, body, nonce, seq, at } }
    }
    case 'outcome': {
      keys(payload, ['proposal', 'state', 'finalStatus', 'code', 'at'], ['evidence', 'onExchange'])
      const p = findProposal(s, payload)
      const at = time(payload, 'at')
      const state = payload.state as OutcomeState
      if (!OUTCOME_STATES.includes(state)) bad(`unknown outcome state ${String(payload.state)}`)
      const opt = (v: Canonical | undefined, k: string) =>
        v === null ? null : typeof v === 'string' && v.length <= 200 ? v : bad(`${k} must be text or null`)
      const finalStatus = opt(payload.finalStatus, 'finalStatus')
      const code = opt(payload.code, 'code')
      const evidence = payload.evidence
      if (evidence !== undefined && (typeof evidence !== 'string' || evidence === '' || evidence.length > MAX_EVIDENCE_CHARS))
        bad(`evidence must be text of at most ${MAX_EVIDENCE_CHARS} characters`)
      const last = p.outcomes.at(-1)
      if (last && isFinalOutcome(last.state)) bad('the proposal already has its final outcome')
      if (state === 'expired') {
        if (p.signed) bad('a signed proposal cannot expire: its bytes may be on the exchange')
        if (p.rejection) bad('a rejected proposal does not expire')
        if (at < p.expiresAt) bad('recorded as expired before its expiry')
      } else if (payload.onExchange !== undefined) {
        // Found executed on the exchange before any desk signed (the chain lost its `signed` row, or
        // another copy of the key sent it): recorded so that nothing is signed again.
        if (payload.onExchange !== true) bad('onExchange must be true when present')
        if (p.signed) bad('the signed bytes are stored: their outcome is recorded as usual')
        if (state !== 'reconciled' && state !== 'failed') bad('an outcome found on the exchange is reconciled or failed')
        if (evidence === undefined) bad('an outcome found on the exchange carries the reads as evidence')
        if (p.rejection) bad('a rejected proposal is not executed')
      } else if (!p.signed) {
        bad('an outcome before the signed bytes were stored')
      }
      const outcome = {
        by: signer,
        state,
        finalStatus,
        code,
        seq,
        at,
        ...(typeof evidence === 'string' ? { evidence } : {}),
        ...(payload.onExchange === true ? { onExchange: true as const } : {}),
      }
      return { ...p, outcomes: [...p.outcomes, outcome] }
    }
  }
}
