/**
 * Team mode's decision step (WriteGate). Everything it decides comes from the team chain as this
 * desk verified it (signatures, hash links, roster, policy, lifecycle), never from a database flag:
 *  - decide: the policy's first matching rule allows, blocks, or needs approvals; then the write
 *    becomes a signed proposal (verdict 'propose'). The same cloid comes back once its quorum is
 *    met (counted against the current roster) and is allowed with its proposal id.
 *  - beforeSend: under the proposal's execution lease (one row, SELECT ... FOR UPDATE, one desk at
 *    a time) the signed bytes are appended as a `signed` entry before they leave. If bytes are
 *    already stored, TeamAlreadySigned carries them: the desk re-sends those, never a new signature.
 *  - settled: the outcome is appended for every desk.
 * A broken chain refuses every team write (TeamChainTampered names the first bad entry); an
 * unreachable store refuses them too (TeamStoreUnreachable) and loses nothing.
 */
import type { Hex } from 'viem'
import { DeskError } from '../../errors/desk-error'
import {
  ACTION_KINDS,
  ChainVerifier,
  OUTCOME_STATES,
  TeamErrors,
  canonicalJson,
  MAX_EVIDENCE_CHARS,
  countingApprovals,
  entryDigest,
  evaluate,
  isFinalOutcome,
  lifecycleEntry,
  proposalPayload,
  proposalStatus,
  signedEntry,
  type ActionKind,
  type OutcomeState,
  type Proposal,
  type ProposalBody,
  type ProposalEntryKind,
  type SignedEntry,
  type TeamSigner,
  type TeamState,
  type TeamStore,
  type LeaseTx,
  type StoredRow,
  DESK_WIDE_ACCOUNT,
  isSettingsKind,
  settingsAction,
  settingsKey,
  settingsKeyBase,
  settingsKind,
  settingsTitle,
  type SettingsChange,
} from '../../team'
import type { SignedWrite, WriteDecision, WriteGate, WriteIntent } from '../../writes/decision'
import { rollingWindowUsd } from './window'

export interface TeamGateOptions {
  store: TeamStore
  /** this desk's operator identity key (vault) */
  operator: TeamSigner
  /** names this desk as a lease holder (e.g. "ann@desk-2") */
  deskId: string
  /** the genesis this desk joined: a replaced chain is refused */
  genesisDigest?: Hex
  /** how long a proposal waits for approvals; default 24 h */
  proposalTtlMs?: number
  /** how long a desk holds the execution lease after storing the signed bytes; default 60 s */
  leaseMs?: number
  now?: () => number
  /** USD moved over the policy's rolling window, this write included (USD atoms); default: window.ts (proposals' recorded values, 24 h, per account) */
  windowUsd?: (intent: WriteIntent) => Promise<bigint>
  /** what to store in a new proposal so the approved write can be replayed (the channel and its arguments, cloid fixed) */
  replayOf?: (intent: WriteIntent) => ProposalBody['replay'] | undefined
}

export interface StoredSignature {
  proposalId: string
  body: string
  nonce: string
  /** the desk operator who stored them */
  by: string
  seq: bigint
}

const CONFLICT_RETRIES = 8
/** The `signed` entry's nonce for bytes without an exchange nonce (earn requests): the chain requires a non-empty one. */
export const NO_NONCE = 'none'

function alreadySigned(p: Proposal): DeskError {
  const s = p.signed!
  return new DeskError(
    TeamErrors.alreadySigned,
    `proposal ${p.id.slice(0, 10)}… was already signed (entry ${s.seq}): re-send its stored bytes, never a new signature`,
    {
      proposalId: p.id,
      body: s.body,
      nonce: s.nonce,
      by: s.by,
    },
  )
}

function leaseHeld(lease: { holder: string | null; expiresAt: Date | null }): DeskError {
  return new DeskError(TeamErrors.leaseHeld, `desk ${lease.holder} holds the execution lease of this proposal`, {
    holder: lease.holder,
    expiresAt: lease.expiresAt?.toISOString() ?? null,
  })
}

/** What a desk found out about a proposal's stored bytes (the pipeline's outcome, or a takeover's). */
export interface ProposalOutcome {
  state: OutcomeState
  finalStatus: string | null
  code: string | null
  /** what was checked, when the exchange could not confirm (kept to MAX_EVIDENCE_CHARS) */
  evidence?: string | null
}

const refused = (message: string) => new DeskError(TeamErrors.refused, message)

/** The entries a proposal's execution rests on: who may approve, under which rules, and the approvals themselves. */
const PINNED_KINDS = new Set(['genesis', 'roster', 'policy', 'proposal', 'approval', 'rejection'])
const fingerprint = (r: StoredRow) => `${r.digest}|${r.signatures}`
function digestMatches(teamId: Hex, r: StoredRow): boolean {
  try {
    return entryDigest(teamId, { seq: r.seq, prev: r.prev as Hex, kind: r.kind as never, payload: r.payload }) === r.digest
  } catch {
    return false // a prev that is not even a digest
  }
}
const block = (code: string, reason: string): WriteDecision => ({ verdict: 'block', code, reason })

export class TeamGate implements WriteGate {
  private readonly verifier: ChainVerifier
  private queue: Promise<unknown> = Promise.resolve()
  /** Proposals whose signed bytes this desk stored under its lease (by cloid), until their send ends. */
  private readonly leased = new Map<string, string>()
  private readonly now: () => number
  /**
   * What each verified row an execution rests on looked like (digest and signatures), by seq: the
   * roster and policy entries and every proposal, approval and rejection. Verification is
   * incremental, so a row edited, swapped or replaced in the database below the head after this
   * desk verified it would go unseen; before signing, those rows are read again and compared.
   */
  private readonly pinned = new Map<bigint, { kind: string; print: string }>()
  /** A pinned row found changed (recheck): from then on this desk treats the chain as broken there. */
  private changed: { seq: bigint; reason: string } | null = null

  constructor(private readonly o: TeamGateOptions) {
    this.verifier = new ChainVerifier({ genesisDigest: o.genesisDigest })
    this.now = o.now ?? Date.now
  }

  get operatorAddress(): string {
    return this.o.operator.address.toLowerCase()
  }

  /** The chain as last verified (no read): the roster, policy and proposals; `broken` names the first bad entry. */
  report(): ReturnType<ChainVerifier['report']> {
    const r = this.verifier.report()
    return this.changed && !r.broken ? { ...r, ok: false, broken: this.changed } : r
  }

  /** Reads and verifies every entry after the last verified one; a broken chain throws TeamChainTampered. */
  sync(): Promise<TeamState> {
    return this.readVerified((from) => this.o.store.readLog(from))
  }

  /** One read at a time: the verifier is incremental and must see each row once, in order. */
  private readVerified(read: (fromSeq: bigint) => Promise<StoredRow[]>): Promise<TeamState> {
    const run = this.queue
      .catch(() => undefined)
      .then(async () => {
        const head = this.verifier.report().state.head
        const rows = await read(head ? head.seq + 1n : 0n)
        const report = await this.verifier.add(rows)
        for (const r of rows) {
          if (report.broken && r.seq >= report.broken.seq) break
          if (PINNED_KINDS.has(r.kind)) this.pinned.set(r.seq, { kind: r.kind, print: fingerprint(r) })
        }
        return this.check(report)
      })
    this.queue = run
    return run
  }

  private check(report: ReturnType<ChainVerifier['report']>): TeamState {
    const broken = report.broken ?? this.changed
    if (broken) {
      const { seq, reason } = broken
      throw new DeskError(TeamErrors.tampered, `the team chain does not verify at entry ${seq}: ${reason}`, { seq: seq.toString(), reason })
    }
    if (!report.state.roster) throw refused('the team chain has no genesis yet')
    return report.state
  }

  private proposalFor(state: TeamState, cloid: string): Proposal | undefined {
    const id = state.cloids.get(cloid)
    return id ? state.proposals.get(id) : undefined
  }

  /** Signs and appends one lifecycle entry on the freshest verified state (retried when another desk took the seq). */
  private async append(kind: ProposalEntryKind, payload: (state: TeamState) => unknown): Promise<SignedEntry> {
    for (let attempt = 0; ; attempt++) {
      const state = await this.sync()
      const entry = await this.sign(state, kind, payload(state))
      try {
        await this.o.store.append(entry)
      } catch (e) {
        if (e instanceof DeskError && e.code === TeamErrors.conflict && attempt < CONFLICT_RETRIES) continue
        throw e
      }
      await this.sync()
      return entry
    }
  }

  private async sign(state: TeamState, kind: ProposalEntryKind, payload: unknown): Promise<SignedEntry> {
    let unsigned
    try {
      unsigned = lifecycleEntry(state, kind, payload, this.operatorAddress)
    } catch (e) {
      // The chain's own rule, checked before anything is signed: every desk would refuse this entry.
      if (e instanceof DeskError && e.code === TeamErrors.badInput) throw refused(e.message)
      throw e
    }
    return signedEntry(state.roster!.teamId, unsigned, [this.o.operator])
  }

  async decide(intent: WriteIntent): Promise<WriteDecision> {
    const state = await this.sync()
    const existing = intent.cloid === '' ? undefined : this.proposalFor(state, intent.cloid)
    if (existing) return this.decideExisting(state, existing, intent)
    if (!ACTION_KINDS.includes(intent.kind as ActionKind))
      return block(TeamErrors.refused, `the team policy has no action kind ${intent.kind}`)
    if (!state.policy) return block('TeamPolicyBlocks', 'the team has no policy yet: every write is blocked')
    const windowUsd = this.o.windowUsd ? await this.o.windowUsd(intent) : rollingWindowUsd(state, intent, this.now())
    const destination = intent.destination?.address.toLowerCase()
    const d = evaluate(state.policy.rules, {
      kind: intent.kind as ActionKind,
      account: intent.account,
      usd: intent.usdAtoms ?? 0n,
      windowUsd,
      destination,
    })
    if (d.effect === 'allow') return { verdict: 'allow' }
    if (d.effect === 'block')
      return block('TeamPolicyBlocks', d.rule ? `team policy rule ${d.rule} blocks this write` : 'no team policy rule allows this write')
    // Approval happens later, so the approved write must be recognisable when it comes back: by its cloid.
    if (intent.cloid === '')
      return block(TeamErrors.refused, `rule ${d.rule} needs approvals, but this write carries no cloid to match it when approved`)
    let action: ProposalBody['action']
    try {
      action = JSON.parse(canonicalJson(intent.action))
    } catch (e) {
      return block(TeamErrors.refused, `this write cannot be proposed: ${(e as Error).message}`)
    }
    const at = this.now()
    const policyVersion = state.policy.version
    const body = {
      network: intent.network,
      exchange: intent.exchange,
      account: intent.account.toLowerCase(),
      signer: intent.signer?.toLowerCase() ?? null,
      kind: intent.kind as ActionKind,
      action,
      cloid: intent.cloid,
      title: intent.title,
      preview: [...intent.preview],
      usd: intent.usdAtoms,
      windowUsd,
      destination: destination ?? null,
      policyVersion,
      rule: d.rule,
      needs: { count: d.count, roles: d.roles },
      at,
      expiresAt: at + (this.o.proposalTtlMs ?? 24 * 3600_000),
      ...(() => {
        const replay = this.o.replayOf?.(intent)
        return replay ? { replay } : {}
      })(),
    }
    let entry: SignedEntry
    try {
      entry = await this.append('proposal', () => proposalPayload(body))
    } catch (e) {
      if (e instanceof DeskError && e.code === TeamErrors.refused) return block(e.code, e.message)
      throw e
    }
    return {
      verdict: 'propose',
      proposalId: entry.digest,
      needs: `${d.count} approval(s) from ${d.roles.join(' or ')} (rule ${d.rule})`,
      expiresAt: body.expiresAt,
    }
  }

  private async decideExisting(state: TeamState, p: Proposal, intent: WriteIntent): Promise<WriteDecision> {
    const same =
      p.network === intent.network &&
      p.exchange === intent.exchange &&
      p.account === intent.account.toLowerCase() &&
      p.kind === intent.kind &&
      canonicalJson(p.action) === canonicalJson(intent.action) &&
      p.destination === (intent.destination?.address.toLowerCase() ?? null)
    if (!same)
      return block('TeamProposalMismatch', `cloid ${intent.cloid} belongs to proposal ${p.id.slice(0, 10)}…, which is a different write`)
    const status = proposalStatus(p, state.roster!, this.now())
    switch (status) {
      case 'approved':
        if (state.policy?.version !== p.policyVersion)
          return block(
            'TeamPolicyChanged',
            `the team policy changed since proposal ${p.id.slice(0, 10)}… (version ${p.policyVersion}, now ${state.policy?.version}): propose it again`,
          )
        return { verdict: 'allow', proposalId: p.id }
      case 'open': {
        const have = countingApprovals(p, state.roster!).length
        return {
          verdict: 'propose',
          proposalId: p.id,
          needs: `${have} of ${p.needs.count} approval(s) from ${p.needs.roles.join(' or ')}`,
          expiresAt: p.expiresAt,
        }
      }
      case 'rejected':
        return block('TeamProposalRejected', `proposal ${p.id.slice(0, 10)}… was rejected: ${p.rejection!.reason}`)
      case 'expired':
        await this.expire(p.id).catch(() => undefined) // recorded for everyone when possible; refused either way
        return block('TeamProposalExpired', `proposal ${p.id.slice(0, 10)}… expired at ${new Date(p.expiresAt).toISOString()}`)
      case 'signed':
      case 'final':
        return block(
          TeamErrors.alreadySigned,
          `proposal ${p.id.slice(0, 10)}… was already signed: re-send its stored bytes, never a new signature`,
        )
    }
  }

  /**
   * Takes the proposal's execution lease and stores the signed bytes before they leave. Exactly one
   * desk succeeds per proposal; any other gets TeamAlreadySigned with the stored bytes.
   */
  async beforeSend(signed: SignedWrite): Promise<void> {
    const state = await this.sync()
    const p = signed.intent.cloid === '' ? undefined : this.proposalFor(state, signed.intent.cloid)
    if (!p) return // allowed by the policy outright: nothing to coordinate
    for (let attempt = 0; ; attempt++) {
      try {
        await this.o.store.withLease(p.id, async (tx, lease) => {
          const now = await this.syncVia(tx)
          const current = now.proposals.get(p.id)!
          if (current.signed) throw alreadySigned(current)
          if (lease.live && lease.holder !== this.o.deskId)
            throw new DeskError(TeamErrors.leaseHeld, `desk ${lease.holder} holds the execution lease of this proposal`, {
              holder: lease.holder,
              expiresAt: lease.expiresAt?.toISOString() ?? null,
            })
          const status = proposalStatus(current, now.roster!, this.now())
          if (status !== 'approved') throw refused(`proposal ${p.id.slice(0, 10)}… is ${status}: nothing may be sent`)
          await this.recheck(current, (seqs) => tx.readRows(seqs))
          // An earn request carries no exchange nonce (its bytes are bound by user_nonce / operation id and deadline).
          const nonce = signed.nonce === '' ? NO_NONCE : signed.nonce
          const entry = await this.sign(now, 'signed', { proposal: p.id, body: signed.body, nonce, at: this.now() })
          await tx.append(entry)
          await tx.take(this.o.deskId, this.o.leaseMs ?? 60_000)
        })
        this.leased.set(signed.intent.cloid, p.id)
        break
      } catch (e) {
        if (e instanceof DeskError && e.code === TeamErrors.conflict && attempt < CONFLICT_RETRIES) continue
        throw e
      }
    }
    await this.sync()
  }

  /**
   * While the bytes this desk stored are being sent (resends of the same bytes included), its lease
   * is renewed every third of its length, so no other desk takes over a send still in progress. A
   * renewal that finds the lease already run out stops: a takeover may be under way, and the
   * exchange's nonce rules keep the two sends of the same bytes to one transaction.
   */
  sending(intent: WriteIntent): () => void {
    const id = this.leased.get(intent.cloid)
    if (id === undefined) return () => {}
    const ms = this.o.leaseMs ?? 60_000
    const timer = setInterval(
      () => {
        this.o.store.renewLease(id, this.o.deskId, ms).then(
          (held) => void (held || clearInterval(timer)),
          () => undefined, // store unreachable: the lease runs out; a takeover re-sends the same bytes
        )
      },
      Math.max(1, Math.floor(ms / 3)),
    )
    timer.unref?.()
    return () => {
      clearInterval(timer)
      this.leased.delete(intent.cloid)
    }
  }

  /**
   * Reads again the rows `p`'s execution rests on (the roster and policy entries, the proposal, its
   * approvals) and refuses, TeamChainTampered naming the first, any that differs from what this desk
   * verified: edited (content no longer matching its digest), replaced, swapped or deleted.
   */
  async recheck(p: Proposal, read: (seqs: bigint[]) => Promise<StoredRow[]> = (seqs) => this.o.store.readRows(seqs)): Promise<void> {
    const state = this.verifier.report().state
    const mine = new Set([p.seq, ...p.approvals.map((a) => a.seq), ...(p.rejection ? [p.rejection.seq] : [])])
    const seqs = [...this.pinned].filter(([seq, v]) => mine.has(seq) || v.kind === 'genesis' || v.kind === 'roster' || v.kind === 'policy')
    const rows = new Map((await read(seqs.map(([seq]) => seq))).map((r) => [r.seq, r]))
    for (const [seq, v] of seqs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const r = rows.get(seq)
      const reason = !r
        ? 'the row is gone from the team store'
        : !digestMatches(state.roster!.teamId, r)
          ? 'content does not match its stored digest (the row was edited)'
          : fingerprint(r) !== v.print
            ? 'the row differs from the one this desk verified (replaced or moved in the database)'
            : null
      if (reason) {
        this.changed ??= { seq, reason }
        throw new DeskError(TeamErrors.tampered, `the team chain does not verify at entry ${seq}: ${reason}; nothing was signed or sent`, {
          seq: seq.toString(),
          reason,
        })
      }
    }
  }

  /** Rows appended since the last verified one, read inside the lease transaction (so none is missed). */
  private syncVia(tx: LeaseTx): Promise<TeamState> {
    return this.readVerified((from) => tx.readLog(from))
  }

  async settled(intent: WriteIntent, outcome: { state: string; finalStatus: string | null; code: string | null }): Promise<void> {
    const state = await this.sync()
    const p = intent.cloid === '' ? undefined : this.proposalFor(state, intent.cloid)
    if (!p?.signed) return
    if (!OUTCOME_STATES.includes(outcome.state as OutcomeState) || outcome.state === 'expired')
      throw refused(`unknown outcome state ${outcome.state}`)
    await this.append('outcome', () => ({
      proposal: p.id,
      state: outcome.state,
      finalStatus: outcome.finalStatus,
      code: outcome.code,
      at: this.now(),
    }))
    const s = outcome.state as OutcomeState
    if (s !== 'unknown' && s !== 'sent' && s !== 'signed') await this.o.store.releaseLease(p.id, this.o.deskId)
  }

  /** The bytes stored for a proposal, from the verified chain (null: nothing was signed yet). */
  async signedBytesFor(proposalId: string): Promise<StoredSignature | null> {
    const state = await this.sync()
    const s = state.proposals.get(proposalId)?.signed
    return s ? { proposalId, body: s.body, nonce: s.nonce, by: s.by, seq: s.seq } : null
  }

  /**
   * A desk taking over after a crash or a lease expiry: takes the lease when it is free and returns
   * the stored bytes to re-send (never a new signature). TeamLeaseHeld while another desk holds it.
   */
  async takeOver(proposalId: string): Promise<StoredSignature | null> {
    return this.o.store.withLease(proposalId, async (tx, lease) => {
      const state = await this.syncVia(tx)
      const s = state.proposals.get(proposalId)?.signed
      if (!s) return null
      if (lease.live && lease.holder !== this.o.deskId)
        throw new DeskError(TeamErrors.leaseHeld, `desk ${lease.holder} holds the execution lease of this proposal`, {
          holder: lease.holder,
          expiresAt: lease.expiresAt?.toISOString() ?? null,
        })
      await tx.take(this.o.deskId, this.o.leaseMs ?? 60_000)
      return { proposalId, body: s.body, nonce: s.nonce, by: s.by, seq: s.seq }
    })
  }

  /**
   * The takeover claim: a signed proposal with no final outcome whose execution lease has expired
   * (whoever held it, this desk included: a live lease is a send in progress) is leased to this desk.
   * Returns the stored bytes to re-send (never a new signature); null when there is nothing to take
   * over; TeamLeaseHeld while a lease runs. Two desks racing here: the lease row serialises them, the
   * second sees the first one's live lease.
   */
  async claimExpired(proposalId: string): Promise<StoredSignature | null> {
    return this.o.store.withLease(proposalId, async (tx, lease) => {
      const state = await this.syncVia(tx)
      const p = state.proposals.get(proposalId)
      const s = p?.signed
      if (!p || !s) return null
      const last = p.outcomes.at(-1)
      if (last && isFinalOutcome(last.state)) return null
      if (lease.live) throw leaseHeld(lease)
      await tx.take(this.o.deskId, this.o.leaseMs ?? 60_000)
      return { proposalId, body: s.body, nonce: s.nonce, by: s.by, seq: s.seq }
    })
  }

  /**
   * Appends a proposal's outcome for every desk (a takeover's result). A final outcome ends this
   * desk's lease; a non-final one ('unknown') keeps it until it expires, then any desk may take over again.
   */
  async recordOutcome(proposalId: string, o: ProposalOutcome): Promise<void> {
    if (!OUTCOME_STATES.includes(o.state) || o.state === 'expired') throw refused(`unknown outcome state ${o.state}`)
    const evidence = o.evidence ? o.evidence.slice(0, MAX_EVIDENCE_CHARS) : null
    await this.append('outcome', () => ({
      proposal: proposalId,
      state: o.state,
      finalStatus: o.finalStatus?.slice(0, 200) ?? null,
      code: o.code?.slice(0, 200) ?? null,
      at: this.now(),
      ...(evidence ? { evidence } : {}),
    }))
    if (isFinalOutcome(o.state)) await this.o.store.releaseLease(proposalId, this.o.deskId)
  }

  /** Signed proposals without a final outcome: what a takeover may have to finish. */
  async unsettled(): Promise<Proposal[]> {
    const state = await this.sync()
    return [...state.proposals.values()].filter((p) => {
      const last = p.outcomes.at(-1)
      // A settings change is applied by the desk it names, never re-sent to an exchange.
      return p.signed !== null && !(last && isFinalOutcome(last.state)) && !isSettingsKind(p.kind)
    })
  }

  /** Approves a proposal as this desk's operator (the chain's rules checked first, typed refusal otherwise). */
  async approve(proposalId: string): Promise<void> {
    await this.append('approval', (s) => ({
      proposal: proposalId,
      policyVersion: s.proposals.get(proposalId)?.policyVersion ?? 0,
      at: this.now(),
    }))
  }

  async reject(proposalId: string, reason: string): Promise<void> {
    await this.append('rejection', () => ({ proposal: proposalId, reason, at: this.now() }))
  }

  /** Records an unsigned proposal past its expiry as expired (its final state). */
  async expire(proposalId: string): Promise<void> {
    await this.append('outcome', () => ({ proposal: proposalId, state: 'expired', finalStatus: null, code: null, at: this.now() }))
  }

  /** Records every unsigned proposal past its expiry as expired; returns how many. */
  async expireDue(): Promise<number> {
    const state = await this.sync()
    const now = this.now()
    let n = 0
    for (const p of state.proposals.values()) {
      if (proposalStatus(p, state.roster!, now) === 'expired' && p.outcomes.length === 0 && !p.signed && !p.rejection) {
        await this.expire(p.id)
        n++
      }
    }
    return n
  }

  // ---- guardrail settings changes (address book, limits, resume) --------------------------------

  get desk(): string {
    return this.o.deskId
  }

  /**
   * Judges a settings change of this desk by the team policy's first matching rule: allow -> the
   * caller applies it now; block -> TeamPolicyBlocks naming the rule; approvals -> a signed proposal
   * carrying the exact change (or the one already open or approved for the same change: asking twice
   * makes one proposal). The halt never comes here (it stays immediate).
   */
  async decideSettings(
    change: SettingsChange,
    where: { network: string; exchange: string; preview: string[] },
    beforePropose: () => Promise<void> = async () => {},
  ): Promise<{ verdict: 'allow' } | { verdict: 'propose'; proposalId: string; needs: string; expiresAt: number }> {
    const state = await this.sync()
    if (!state.policy) throw new DeskError('TeamPolicyBlocks', 'the team has no policy yet: every settings change is blocked')
    const kind = settingsKind(change)
    const action = settingsAction(change, this.o.deskId)
    const destination = change.op === 'address.add' ? change.address.toLowerCase() : undefined
    const d = evaluate(state.policy.rules, { kind, account: DESK_WIDE_ACCOUNT, usd: 0n, windowUsd: 0n, destination })
    if (d.effect === 'allow') return { verdict: 'allow' }
    if (d.effect === 'block')
      throw new DeskError(
        'TeamPolicyBlocks',
        d.rule ? `team policy rule ${d.rule} blocks this change (${kind})` : `no team policy rule allows this change (${kind})`,
        { rule: d.rule, kind },
      )
    const base = settingsKeyBase(settingsKey(where.network, where.exchange, action, 0))
    const same = [...state.proposals.values()].filter((p) => p.cloid.startsWith(`${base}:`))
    const now = this.now()
    const pending = same.find((p) => {
      const st = proposalStatus(p, state.roster!, now)
      return st === 'open' || st === 'approved'
    })
    const needs = (p: Proposal) =>
      `${countingApprovals(p, state.roster!).length} of ${p.needs.count} approval(s) from ${p.needs.roles.join(' or ')} (rule ${p.rule})`
    if (pending) return { verdict: 'propose', proposalId: pending.id, needs: needs(pending), expiresAt: pending.expiresAt }
    await beforePropose()
    const at = now
    let entry: SignedEntry
    try {
      entry = await this.append('proposal', (s) => {
        const n = [...s.proposals.values()].filter((p) => p.cloid.startsWith(`${base}:`)).length
        return proposalPayload({
          network: where.network,
          exchange: where.exchange,
          account: DESK_WIDE_ACCOUNT,
          signer: null,
          kind,
          action,
          cloid: settingsKey(where.network, where.exchange, action, n),
          title: settingsTitle(change),
          preview: [...where.preview],
          usd: null,
          windowUsd: 0n,
          destination: destination ?? null,
          policyVersion: s.policy!.version,
          rule: d.rule,
          needs: { count: d.count, roles: d.roles },
          at,
          expiresAt: at + (this.o.proposalTtlMs ?? 24 * 3600_000),
        })
      })
    } catch (e) {
      if (e instanceof DeskError && e.code === TeamErrors.badInput) throw refused(e.message)
      throw e
    }
    return {
      verdict: 'propose',
      proposalId: entry.digest,
      needs: `0 of ${d.count} approval(s) from ${d.roles.join(' or ')} (rule ${d.rule})`,
      expiresAt: this.now() + (this.o.proposalTtlMs ?? 24 * 3600_000),
    }
  }

  /**
   * Applies an approved settings proposal on the desk it names, exactly once: under its lease, with
   * the chain re-read through that transaction, the quorum counted against the verified roster and
   * policy and the rows it rests on re-checked, a `signed` entry (the exact change) is appended
   * before anything changes locally; then `apply` runs and its outcome is recorded for every desk.
   * A second call finds the `signed` entry: TeamAlreadySigned, nothing applied again.
   */
  async applySettings(proposalId: string, apply: (p: Proposal) => Promise<void>): Promise<ProposalOutcome> {
    const state = await this.sync()
    const p = state.proposals.get(proposalId)
    if (!p) throw new DeskError('TeamProposalNotFound', `no verified proposal ${proposalId.slice(0, 10)}…`)
    if (!isSettingsKind(p.kind)) throw refused(`proposal ${proposalId.slice(0, 10)}… is not a settings change`)
    if (p.action.desk !== this.o.deskId)
      throw new DeskError(
        'TeamSettingsOtherDesk',
        `proposal ${proposalId.slice(0, 10)}… changes the settings of desk ${String(p.action.desk)}, not this one (${this.o.deskId})`,
      )
    for (let attempt = 0; ; attempt++) {
      try {
        await this.o.store.withLease(p.id, async (tx, lease) => {
          const now = await this.syncVia(tx)
          const current = now.proposals.get(p.id)!
          if (current.signed) throw alreadySigned(current)
          if (lease.live && lease.holder !== this.o.deskId) throw leaseHeld(lease)
          const status = proposalStatus(current, now.roster!, this.now())
          if (status !== 'approved') throw refused(`proposal ${p.id.slice(0, 10)}… is ${status}: nothing was applied`)
          await this.recheck(current, (seqs) => tx.readRows(seqs))
          const body = canonicalJson({ action: current.action })
          const entry = await this.sign(now, 'signed', { proposal: p.id, body, nonce: NO_NONCE, at: this.now() })
          await tx.append(entry)
          await tx.take(this.o.deskId, this.o.leaseMs ?? 60_000)
        })
        break
      } catch (e) {
        if (e instanceof DeskError && e.code === TeamErrors.conflict && attempt < CONFLICT_RETRIES) continue
        throw e
      }
    }
    await this.sync()
    return this.settleSettings(p, async () => {
      await apply(p)
      return 'applied'
    })
  }

  /** Runs a settings change's application and records its outcome for every desk (a refusal as `rejected` with its code). */
  private async settleSettings(p: Proposal, run: () => Promise<string>): Promise<ProposalOutcome> {
    let outcome: ProposalOutcome
    try {
      outcome = { state: 'accepted', finalStatus: await run(), code: null }
    } catch (e) {
      const code = e instanceof DeskError ? e.code : 'Internal'
      outcome = { state: 'rejected', finalStatus: 'not applied', code, evidence: e instanceof Error ? e.message : null }
    }
    await this.recordOutcome(p.id, outcome)
    return outcome
  }

  /**
   * A settings change this desk recorded as `signed` but never settled (the desk stopped between the
   * two): under the lease (another desk's live lease refuses), `inEffect` reads this desk's settings;
   * found in effect -> recorded applied, never applied twice; not in effect -> applied now (its
   * quorum was verified before the `signed` entry). Null when there is nothing to finish.
   */
  async finishSettings(
    proposalId: string,
    inEffect: (p: Proposal) => Promise<boolean>,
    apply: (p: Proposal) => Promise<void>,
  ): Promise<ProposalOutcome | null> {
    const p = await this.o.store.withLease(proposalId, async (tx, lease) => {
      const state = await this.syncVia(tx)
      const cur = state.proposals.get(proposalId)
      if (!cur || !isSettingsKind(cur.kind) || cur.action.desk !== this.o.deskId) return null
      if (!cur.signed || cur.signed.by !== this.operatorAddress || cur.outcomes.length > 0) return null
      if (lease.live && lease.holder !== this.o.deskId) throw leaseHeld(lease)
      await tx.take(this.o.deskId, this.o.leaseMs ?? 60_000)
      return cur
    })
    if (!p) return null
    return this.settleSettings(p, async () => {
      if (await inEffect(p)) return 'applied (found in effect after a restart)'
      await apply(p)
      return 'applied'
    })
  }

  /** Verified proposals with their status now (for the approvals queue). */
  async proposals(): Promise<{ proposal: Proposal; status: ReturnType<typeof proposalStatus> }[]> {
    const state = await this.sync()
    const now = this.now()
    return [...state.proposals.values()].map((proposal) => ({ proposal, status: proposalStatus(proposal, state.roster!, now) }))
  }
}
