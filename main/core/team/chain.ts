/**
 * Verifying the team chain from genesis: sequence, hash link, canonical payload, digest, every
 * author's signature, the admin quorum of the roster as it stood before the entry, and the change
 * itself. Nothing past the first bad entry is trusted: the report carries the state built from the
 * verified prefix and names the first broken link (seq and reason). The verifier is incremental, so
 * a desk checks new entries as they arrive without re-reading the chain.
 */
import type { Address, Hex } from 'viem'
import { parseCanonical, type Canonical } from './canonical'
import {
  ENTRY_KINDS,
  ZERO_HASH,
  changeDigest,
  entryDigest,
  keccakReady,
  signsAsChange,
  type EntryKind,
  type EntrySignature,
  type SignedEntry,
} from './entry'
import { isDeskError } from '../errors/desk-error'
import { policyFromPayload, type Policy } from './policy'
import { applyLifecycleEntry, isProposalEntryKind, type Proposal, type ProposalEntryKind } from './proposals'
import { adminsOf, applyRosterChanges, rosterFromGenesis, type Roster } from './roster'
import { SignatureVerifier } from './signatures'
import { proposalKey } from './proposal-key'
import { KEPT_REFUSALS, isRefusal, refusalFromPayload, type CustodyRefusal } from './custody/refusal'
import {
  custodyFromPayload,
  isResplit,
  isSeal,
  resplitFromPayload,
  sealFromPayload,
  type CustodyPending,
  type CustodyRecord,
} from './custody/record'

/** A row as the store returns it: nothing in it is trusted yet. */
export interface StoredRow {
  seq: bigint
  prev: string
  kind: string
  payload: string
  digest: string
  signatures: string
}

export interface PolicyVersion {
  version: number
  seq: bigint
  digest: Hex
  policy: Policy
}

export interface TeamState {
  roster: Roster | null
  policy: Policy | null
  /** appended in place as policy entries verify (like `proposals`), never copied per entry */
  policyHistory: PolicyVersion[]
  head: { seq: bigint; digest: Hex } | null
  /** the digest of the last genesis, roster or policy entry: the basis a new change must name */
  governance: Hex | null
  /** by proposal id (its entry digest); the map is updated in place as entries verify */
  proposals: Map<string, Proposal>
  /** proposal key (proposal-key.ts: the cloid, with the kind for an earn claim or cancel) -> proposal id */
  cloids: Map<string, string>
  /** accounts held by the team (custody/record.ts): the split in force for each, by account */
  custody: Map<string, CustodyRecord>
  /** re-splits authorised by the admin quorum and waiting for their sealer's seal, by account */
  custodyPending: Map<string, CustodyPending>
  /** the latest custody refusals (custody/refusal.ts), oldest first, at most KEPT_REFUSALS; appended in place */
  custodyRefusals: CustodyRefusal[]
}

export interface BrokenLink {
  seq: bigint
  reason: string
}

export interface ChainReport {
  ok: boolean
  /** entries verified and trusted (the prefix before `broken`) */
  verified: number
  state: TeamState
  broken: BrokenLink | null
}

export interface VerifyOptions {
  genesisDigest?: Hex
  trustedHead?: { seq: bigint; digest: Hex }
}

class Refused extends Error {}

/** A roster's admins, computed once per roster object (rosters are never mutated once built). */
const adminSets = new WeakMap<Roster, Set<string>>()
function admins(r: Roster): Set<string> {
  let a = adminSets.get(r)
  if (!a) adminSets.set(r, (a = adminsOf(r)))
  return a
}
const refuse = (reason: string): never => {
  throw new Refused(reason)
}

function parseSignatures(text: string): EntrySignature[] {
  let list: Canonical
  try {
    list = parseCanonical(text)
  } catch {
    return refuse('signature list is not canonical JSON')
  }
  if (!Array.isArray(list) || list.length === 0) return refuse('entry carries no signature')
  let last = ''
  return list.map((s) => {
    if (typeof s !== 'object' || s === null || Array.isArray(s) || typeof s.signer !== 'string' || typeof s.signature !== 'string')
      return refuse('malformed signature')
    if (!/^0x[0-9a-f]{40}$/.test(s.signer)) return refuse(`malformed signer ${s.signer}`)
    if (s.signer <= last) return refuse('signatures are not one per signer in order')
    last = s.signer
    return { signer: s.signer as Address, signature: s.signature as Hex }
  })
}

/** The team id a genesis row names (for the signature batch; the row itself is verified later). */
function genesisTeamId(row: StoredRow | undefined): Hex | null {
  if (row?.kind !== 'genesis') return null
  const m = /"teamId":"(0x[0-9a-f]{64})"/.exec(row.payload)
  return m ? (m[1] as Hex) : null
}

export class ChainVerifier {
  private readonly sigs = new SignatureVerifier()
  private state: TeamState = {
    roster: null,
    policy: null,
    policyHistory: [],
    head: null,
    governance: null,
    proposals: new Map(),
    cloids: new Map(),
    custody: new Map(),
    custodyPending: new Map(),
    custodyRefusals: [],
  }
  private verified = 0
  private broken: BrokenLink | null = null

  /**
   * `genesisDigest`: the genesis this desk joined; a chain starting anywhere else is refused.
   * `trustedHead`: an entry this desk itself verified earlier, by signatures, and kept in its own
   * data directory. Up to it, the ECDSA checks are skipped (the digests chain to it, so the content
   * is pinned); every other check still runs. `desk team verify` never passes it.
   */
  constructor(private readonly opts: VerifyOptions = {}) {}

  report(): ChainReport {
    return { ok: this.broken === null, verified: this.verified, state: this.state, broken: this.broken }
  }

  /** Verifies rows that follow the ones already seen (in seq order, as read). */
  async add(rows: readonly StoredRow[]): Promise<ChainReport> {
    // Every signature the rows carry is checked in one batch first (signatures.ts); the loop
    // below still asks for each one, in order, and gets this process's own verdict.
    await keccakReady
    const pinned = this.opts.trustedHead
    // Changes signed as changes (entry.ts) are checked over their change digest.
    const teamId = this.state.roster?.teamId ?? genesisTeamId(rows[0])
    const batch = rows
      .filter((r) => !pinned || r.seq > pinned.seq)
      .map((r) => (teamId && signsAsChange(r) ? { digest: changeDigest(teamId, r), signatures: r.signatures } : r))
    if (!this.broken) await this.sigs.prefetch(batch)
    for (const row of rows) {
      if (this.broken) break
      try {
        this.state = await this.verifyRow(row)
        this.verified++
      } catch (e) {
        if (!(e instanceof Refused) && !isDeskError(e)) throw e
        this.broken = { seq: row.seq, reason: e.message }
      }
    }
    this.sigs.forget()
    return this.report()
  }

  private async verifyRow(row: StoredRow): Promise<TeamState> {
    const s = this.state
    const expected = s.head ? s.head.seq + 1n : 0n
    if (row.seq !== expected) refuse(`expected entry ${expected} here, found ${row.seq} (missing, duplicated or reordered entry)`)
    if (!ENTRY_KINDS.includes(row.kind as EntryKind)) refuse(`unknown entry kind ${row.kind}`)
    const kind = row.kind as EntryKind
    if ((kind === 'genesis') !== (row.seq === 0n))
      refuse(kind === 'genesis' ? 'a second genesis' : 'the chain does not start with a genesis')
    const prev = s.head ? s.head.digest : ZERO_HASH
    if (row.prev !== prev) refuse(`does not link to the entry before (prev ${row.prev.slice(0, 10)}…, expected ${prev.slice(0, 10)}…)`)
    let payload: Canonical
    try {
      payload = parseCanonical(row.payload)
    } catch (e) {
      return refuse((e as Error).message)
    }
    // The roster that authorises this entry: the one before it, or for genesis the one it creates.
    const authority = kind === 'genesis' ? rosterFromGenesis(payload) : s.roster!
    const digest = entryDigest(authority.teamId, { seq: row.seq, prev: prev, kind, payload: row.payload })
    if (row.digest !== digest) refuse('content does not match its stored digest (the row was edited)')
    if (kind === 'genesis' && this.opts.genesisDigest && digest !== this.opts.genesisDigest.toLowerCase())
      refuse("not this team's genesis (the chain was replaced)")
    const pinned = this.opts.trustedHead
    if (pinned && row.seq === pinned.seq && digest !== pinned.digest.toLowerCase())
      refuse('differs from the entry this desk verified before (the chain was rewritten)')
    const skipEcdsa = pinned !== undefined && row.seq <= pinned.seq
    if (isProposalEntryKind(kind)) return this.verifyLifecycleRow(row, kind, payload, digest, skipEcdsa)
    if (kind === 'custody' && isSeal(payload)) return this.verifySealRow(row, payload, digest, skipEcdsa)
    if (kind === 'custody' && isRefusal(payload)) return this.verifyRefusalRow(row, payload, digest, skipEcdsa)
    // A change signed as a change (entry.ts) applies only on the roster and policy it was signed for.
    const asChange = signsAsChange(row)
    if (asChange) {
      const basis = (payload as { basis?: unknown }).basis
      if (basis !== s.governance)
        refuse(
          `signed for another roster and policy (basis ${String(basis).slice(0, 10)}…, the last change is ${String(s.governance).slice(0, 10)}…)`,
        )
    }
    const signed = asChange ? changeDigest(authority.teamId, row) : digest
    const authors = admins(authority)
    const signatures = parseSignatures(row.signatures)
    for (const sig of signatures) {
      if (!authors.has(sig.signer))
        refuse(`signed by ${sig.signer}, who is not an admin ${authority.members.has(sig.signer) ? '' : '(or not a member) '}at this point`)
      if (!skipEcdsa && !(await this.sigs.verify(signed, sig.signer, sig.signature))) refuse(`signature of ${sig.signer} does not verify`)
    }
    if (signatures.length < authority.adminQuorum)
      refuse(`${signatures.length} admin signature(s), the admin quorum is ${authority.adminQuorum} (a ${kind} change needs it)`)

    const head = { seq: row.seq, digest }
    switch (kind) {
      case 'genesis':
        return { ...s, roster: authority, head, governance: digest }
      case 'roster':
        return { ...s, roster: applyRosterChanges(authority, payload), head, governance: digest }
      case 'custody': {
        if (isResplit(payload)) {
          const pending = resplitFromPayload(payload, authority, s.custody, digest)
          return { ...s, custodyPending: new Map(s.custodyPending).set(pending.account, pending), head, governance: digest }
        }
        const record = custodyFromPayload(payload, authority, s.custody)
        const custodyPending = new Map(s.custodyPending)
        custodyPending.delete(record.account)
        return { ...s, custody: new Map(s.custody).set(record.account, record), custodyPending, head, governance: digest }
      }
      case 'policy': {
        const policy = policyFromPayload(payload, s.policy?.version ?? 0)
        // Every check has passed: appended in place (a copy per entry made the chain quadratic).
        s.policyHistory.push({ version: policy.version, seq: row.seq, digest, policy })
        return { ...s, policy, head, governance: digest }
      }
    }
  }

  /** A re-split's seal: one author, the sealer the admin quorum named, whose signature verifies (custody/record.ts). */
  private async verifySealRow(row: StoredRow, payload: Canonical, digest: Hex, skipEcdsa: boolean): Promise<TeamState> {
    const s = this.state
    const signatures = parseSignatures(row.signatures)
    if (signatures.length !== 1) refuse(`a seal is signed by its sealer alone, found ${signatures.length} signatures`)
    const { signer, signature } = signatures[0]!
    if (!s.roster!.members.has(signer)) refuse(`signed by ${signer}, who is not a member at this point`)
    if (!skipEcdsa && !(await this.sigs.verify(digest, signer, signature))) refuse(`signature of ${signer} does not verify`)
    const record = sealFromPayload(payload, signer, s.custodyPending)
    const custodyPending = new Map(s.custodyPending)
    custodyPending.delete(record.account)
    return { ...s, custody: new Map(s.custody).set(record.account, record), custodyPending, head: { seq: row.seq, digest } }
  }

  /** A custody refusal: one author, a current member, whose signature verifies, about a team-held account (custody/refusal.ts). */
  private async verifyRefusalRow(row: StoredRow, payload: Canonical, digest: Hex, skipEcdsa: boolean): Promise<TeamState> {
    const s = this.state
    const signatures = parseSignatures(row.signatures)
    if (signatures.length !== 1) refuse(`a custody refusal is signed by its author alone, found ${signatures.length} signatures`)
    const { signer, signature } = signatures[0]!
    if (!s.roster!.members.has(signer)) refuse(`signed by ${signer}, who is not a member at this point`)
    if (!skipEcdsa && !(await this.sigs.verify(digest, signer, signature))) refuse(`signature of ${signer} does not verify`)
    const refusal = refusalFromPayload(payload, signer, s.custody, row.seq)
    // Checked above without changing anything; appended in place (a copy per entry made the chain quadratic).
    s.custodyRefusals.push(refusal)
    if (s.custodyRefusals.length > KEPT_REFUSALS) s.custodyRefusals.splice(0, s.custodyRefusals.length - KEPT_REFUSALS)
    return { ...s, head: { seq: row.seq, digest } }
  }

  /**
   * A proposal, approval, rejection, signed or outcome entry: one author, a current member, whose
   * signature verifies; then the lifecycle rules (proposals.ts) against the state before it.
   */
  private async verifyLifecycleRow(
    row: StoredRow,
    kind: ProposalEntryKind,
    payload: Canonical,
    digest: Hex,
    skipEcdsa: boolean,
  ): Promise<TeamState> {
    const s = this.state
    const signatures = parseSignatures(row.signatures)
    if (signatures.length !== 1) refuse(`a ${kind} entry is signed by exactly one operator, found ${signatures.length}`)
    const { signer, signature } = signatures[0]!
    if (!s.roster!.members.has(signer)) refuse(`signed by ${signer}, who is not a member at this point`)
    if (!skipEcdsa && !(await this.sigs.verify(digest, signer, signature))) refuse(`signature of ${signer} does not verify`)
    const p = applyLifecycleEntry(s, kind, payload, signer, digest, row.seq)
    // Checked above without changing anything; only now is the entry applied.
    s.proposals.set(p.id, p)
    if (kind === 'proposal') s.cloids.set(proposalKey(p.kind, p.cloid), p.id)
    return { ...s, head: { seq: row.seq, digest } }
  }
}

export async function verifyChain(rows: readonly StoredRow[], opts: VerifyOptions = {}): Promise<ChainReport> {
  return new ChainVerifier(opts).add(rows)
}

/** How a signed entry is stored (signatures as canonical JSON). */
export function toStoredRow(e: SignedEntry): StoredRow {
  return {
    seq: e.seq,
    prev: e.prev,
    kind: e.kind,
    payload: e.payload,
    digest: e.digest,
    signatures: `[${e.signatures.map((s) => `{"signature":${JSON.stringify(s.signature)},"signer":${JSON.stringify(s.signer)}}`).join(',')}]`,
  }
}
