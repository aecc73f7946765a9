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
import { getAddress, isAddress, type Hex } from 'viem'
import { formatAtoms, parseDecimal } from '../money/decimal'
import { canonicalJson, type Canonical } from './canonical'
import { teamBadInput } from './errors'
import { ACTION_KINDS, USD_DECIMALS, evaluate, judgedUsd, usdReadingOf, type ActionKind, type Policy } from './policy'
import { ROLES, type Role, type Roster } from './roster'
import { isSettingsKind, settingsChangeOf, settingsDirection } from './settings'
import { rollingWindowUsd } from './window'

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
const anyMemberMay = (kind: ActionKind) => VAULT_KINDS.includes(kind)
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

type Obj = Record<string, Canonical>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const bad = (m: string): never => {
  throw teamBadInput(m)
}

function keys(o: Obj, required: string[], optional: string[] = []): void {
  for (const k of required) if (!(k in o)) bad(`${k} is missing`)
  for (const k of Object.keys(o)) if (!required.includes(k) && !optional.includes(k)) bad(`unexpected field ${k}`)
}
function str(o: Obj, k: string, max = 200): string {
  const v = o[k]
  if (typeof v !== 'string' || v === '' || v.length > max) return bad(`${k} must be a non-empty string of at most ${max} characters`)
  return v
}
function time(o: Obj, k: string): number {
  const v = o[k]
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) return bad(`${k} must be a time in ms`)
  return v
}
function addr(v: unknown, what: string): string {
  if (typeof v !== 'string' || !isAddress(v, { strict: false }) || v !== v.toLowerCase()) return bad(`${what} must be a lower-case address`)
  return getAddress(v).toLowerCase()
}
function usdAtoms(v: unknown, what: string): bigint {
  if (typeof v !== 'string') return bad(`${what} must be a decimal string`)
  const atoms = parseDecimal(v, USD_DECIMALS)
  // One value, one text: "1.50" and "1.5" would hash differently.
  if (formatAtoms(atoms, USD_DECIMALS) !== v) bad(`${what} is not in its plain form (${formatAtoms(atoms, USD_DECIMALS)})`)
  return atoms
}
const usdText = (atoms: bigint) => formatAtoms(atoms, USD_DECIMALS)
const proposalRef = (o: Obj) => {
  const v = o.proposal
  if (typeof v !== 'string' || !/^0x[0-9a-f]{64}$/.test(v)) return bad('proposal must be a proposal id (its entry digest)')
  return v
}

export function parseProposalBody(payload: Canonical): ProposalBody {
  if (!isObj(payload)) return bad('a proposal payload must be an object')
  const o = payload
  keys(
    o,
    [
      'network',
      'exchange',
      'account',
      'signer',
      'kind',
      'action',
      'cloid',
      'title',
      'preview',
      'usd',
      'windowUsd',
      'destination',
      'policyVersion',
      'rule',
      'needs',
      'at',
      'expiresAt',
    ],
    ['replay'],
  )
  if (
    o.replay !== undefined &&
    !(
      isObj(o.replay) &&
      typeof o.replay.channel === 'string' &&
      /^[a-z][a-zA-Z.]{1,60}$/.test(o.replay.channel) &&
      isObj(o.replay.args) &&
      Object.keys(o.replay).length === 2
    )
  )
    bad('replay must be {channel, args}')
  if (!ACTION_KINDS.includes(o.kind as ActionKind)) bad(`unknown action kind ${String(o.kind)}`)
  if (!isObj(o.action)) bad('action must be an object')
  if (!Array.isArray(o.preview) || o.preview.length > 50 || o.preview.some((l) => typeof l !== 'string' || l.length > 500))
    bad('preview must be at most 50 lines of text')
  if (!isObj(o.needs)) bad('needs must be {count, roles}')
  const needs = o.needs as Obj
  const count = needs.count
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) bad('needs.count must be a whole number')
  // A recorded allowed write needs nobody (count 0, no roles); a proposal needs at least one approval from named roles.
  if (!Array.isArray(needs.roles) || (count === 0) !== (needs.roles.length === 0) || needs.roles.some((r) => !ROLES.includes(r as Role)))
    bad(count === 0 ? 'needs.roles must be empty when no approval is needed' : 'needs.roles must list roles')
  if (typeof o.policyVersion !== 'number' || !Number.isInteger(o.policyVersion) || o.policyVersion < 1)
    bad('policyVersion must be a positive integer')
  return {
    network: str(o, 'network'),
    exchange: str(o, 'exchange'),
    account: addr(o.account, 'account'),
    signer: o.signer === null ? null : addr(o.signer, 'signer'),
    kind: o.kind as ActionKind,
    action: o.action as Obj,
    cloid: str(o, 'cloid', 100),
    title: str(o, 'title', 300),
    preview: o.preview as string[],
    usd: o.usd === null ? null : usdAtoms(o.usd, 'usd'),
    windowUsd: o.windowUsd === null ? null : usdAtoms(o.windowUsd, 'windowUsd'),
    destination: o.destination === null ? null : addr(o.destination, 'destination'),
    policyVersion: o.policyVersion as number,
    rule: str(o, 'rule'),
    needs: { count: count as number, roles: needs.roles as Role[] },
    at: time(o, 'at'),
    expiresAt: time(o, 'expiresAt'),
    ...(o.replay !== undefined ? { replay: o.replay as { channel: string; args: Obj } } : {}),
  }
}

/** The payload text of a proposal (canonical JSON is applied by the caller). */
export function proposalPayload(b: ProposalBody): Record<string, unknown> {
  return { ...b, usd: b.usd === null ? null : usdText(b.usd), windowUsd: b.windowUsd === null ? null : usdText(b.windowUsd) }
}

const hasRole = (roster: Roster, who: string, roles: readonly Role[]) =>
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

/** Is this a recorded allowed write (no approval needed), rather than a proposal that waits for approvals? */
export const isRecordedWrite = (p: Pick<ProposalBody, 'needs'>) => p.needs.count === 0

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
      if (s.cloids.has(b.cloid)) bad(`cloid ${b.cloid} was already proposed`)
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
