import type { Address } from 'viem'
import type { SubmissionView, WriteOutcome as WriteOutcomeView } from '../../contract/types'
import { DeskError } from '../errors/desk-error'
import type { EarnWriteResult } from '../exchange/earn/earn-client'
import type { Leaf } from '../exchange/trade/classify'
import { withCloid } from '../exchange/trade/cloid'
import type { SubmitRequest } from '../exchange/trade/submitter'
import type { Journal, Submission } from '../journal'
import { exchangeIdentity, exchangeKey, valueAtMarks, type PolicyAccess } from '../policy'
import { EarnSigningClient, unlockedWriteSide, type WriteAccess, type WriteOutcome, type WriteSide } from '../session'
import { ALLOW_ALL, type SignedWrite, type WriteGate, type WriteIntent, type WriteKind } from './decision'
import { guardRequest, guardValidated, refuseIfHalted } from './guardrails'
import type { DescribedWrite, WriteSpec } from './write-spec'

/**
 * The one pipeline every exchange write walks, from every host:
 *  0. the halt, for the kinds it stops (guardrails.ts): before the vault and anything the feature
 *     reads or validates, so a halted desk answers WritesHalted to every well-formed intent;
 *  1. the selected network's session, with the vault unlocked;
 *  2. the desk's own guardrails for the kind on the request (guardrails.ts: destination, limits);
 *  3. the feature's validate + preview (`WriteSpec.describe`: the only per-kind code), then the
 *     guardrails that need the validated write (an order's value and price band);
 *  4. the intent: kind, network, exchange, account, signer, fixed cloid, exact action, USD value;
 *  5. the decision step (`WriteGate.decide`): allow, block (typed `WriteBlocked`, nothing signed)
 *     or propose (outcome `proposed`, nothing signed);
 *  6. the operator's confirmation, the signature and the journal entry (vault gate + prepare);
 *  7. `beforeSend` (a throw leaves the entry journaled as never sent);
 *  8. the send (same bytes on retry; an unknown outcome goes to the reconciler);
 *  9. the outcome, told to `settled`.
 */
export interface WritePipelineDeps extends WriteAccess, PolicyAccess {
  journal: Journal
  /** The outcome view every host shows (features/journal), handed in where the app is composed. */
  outcomeView(journal: Journal, o: WriteOutcome, leaves?: readonly Leaf[]): WriteOutcomeView
}

export type WriteResult<F> =
  | { state: 'proposed'; intent: WriteIntent; proposalId: string; needs: string; expiresAt: number; feature: F }
  | {
      state: 'submitted'
      intent: WriteIntent
      outcome: WriteOutcome
      leaves: Leaf[]
      /** The earn pool's answer (earn writes). */
      earn?: EarnWriteResult
      /** The proposal this write executes, when the decision named one. */
      proposalId?: string
      feature: F
    }

/** Runs one write through the pipeline (the pipeline's `run`; composite operations take it as a parameter). */
export type RunWrite = <F>(spec: WriteSpec<F>) => Promise<WriteResult<F>>

export type SubmittedWrite<F> = Extract<WriteResult<F>, { state: 'submitted' }>

/**
 * For operations whose result is not a write outcome (an API key's slot, an earn withdrawal, a
 * batch of cancels): a write the decision step made a proposal stops the operation here, typed.
 */
export function requireSubmitted<F>(r: WriteResult<F>): SubmittedWrite<F> {
  if (r.state === 'submitted') return r
  throw new DeskError('WriteProposed', `${r.intent.title}: waiting for approvals (${r.needs}); nothing was signed or sent.`, {
    proposalId: r.proposalId,
    needs: r.needs,
    expiresAt: r.expiresAt,
  })
}

export class WritePipeline {
  private gate: WriteGate = ALLOW_ALL

  constructor(private readonly d: WritePipelineDeps) {}

  /** Team mode plugs its decision step in here; a single operator's desk keeps ALLOW_ALL. */
  setGate(gate: WriteGate): void {
    this.gate = gate
  }

  readonly run: RunWrite = (spec) => this.walk(spec)

  /**
   * The pipeline's first step on its own, for what answers about a write without walking it (its
   * preview or check) and for an operation of several writes that reads before its first one (an
   * API key rotation): refused while halted exactly as the write would be, before their own reads.
   */
  refuseIfHalted(kind: WriteKind): Promise<void> {
    return refuseIfHalted(this.d, kind)
  }

  private async walk<F>(spec: WriteSpec<F>): Promise<WriteResult<F>> {
    await refuseIfHalted(this.d, spec.kind)
    const w = await unlockedWriteSide(this.d)
    const requestUsd = await guardRequest(this.d, spec.kind, w.ctx, spec.guard)
    const described = await spec.describe(w)
    const guardUsd = (await guardValidated(this.d, spec.kind, described.guard)) ?? requestUsd
    const { intent, request } = await this.intentOf(spec.kind, w, described, guardUsd)
    const decision = await this.gate.decide(intent)
    if (decision.verdict === 'block') {
      throw new DeskError(
        'WriteBlocked',
        `${intent.title}: refused by the decision step (${decision.code}): ${decision.reason}. Nothing was signed.`,
        { code: decision.code, kind: intent.kind },
      )
    }
    if (decision.verdict === 'propose') {
      return {
        state: 'proposed',
        intent,
        proposalId: decision.proposalId,
        needs: decision.needs,
        expiresAt: decision.expiresAt,
        feature: described.feature,
      }
    }
    const proposal = decision.proposalId !== undefined ? { proposalId: decision.proposalId } : {}
    const sent =
      described.signing.channel === 'trade'
        ? await this.trade(w, intent, described.signing.afterDecision ? await described.signing.afterDecision() : request!)
        : await this.earn(w, intent, described)
    return { state: 'submitted', intent, ...sent, ...proposal, feature: described.feature }
  }

  /** The outcome as every host shows it; a proposal names what would be signed and its proposal id. */
  view(r: WriteResult<unknown>): WriteOutcomeView {
    if (r.state === 'submitted')
      return {
        ...this.d.outcomeView(this.d.journal, r.outcome, r.leaves),
        ...(r.proposalId !== undefined ? { proposalId: r.proposalId } : {}),
      }
    return { submission: proposedView(r.intent), proposalId: r.proposalId, leaves: [] }
  }

  private async intentOf(
    kind: WriteSpec['kind'],
    w: WriteSide,
    x: DescribedWrite<unknown>,
    guardUsd: bigint | null,
  ): Promise<{ intent: WriteIntent; request: SubmitRequest | null }> {
    let action: Record<string, unknown>
    let cloid: string
    let signer: Address | null
    let request: SubmitRequest | null = null
    if (x.signing.channel === 'trade') {
      // The cloid is fixed now, so the decision and the journal name the same write (actions that
      // cannot carry one are journaled under a local id given at signing: their cloid is '').
      const fixed = withCloid(x.signing.request.action)
      request = { ...x.signing.request, action: fixed.action }
      action = jsonSafe(fixed.action)
      cloid = fixed.reconcilableByCloid ? fixed.key : (x.signing.matchKey ?? '')
      const ref = request.signer
      signer = ref.role === 'owner' ? ref.owner : (w.ctx.keys.agentAddress(ref.owner, ref.slot) ?? null)
    } else {
      action = x.signing.action
      cloid = x.signing.key
      signer = x.account
    }
    const usdAtoms = guardUsd ?? (x.moves ? await valueAtMarks(this.d, x.moves.assetId, x.moves.atoms) : null)
    const intent: WriteIntent = {
      kind,
      network: w.network.name,
      exchange: exchangeKey(exchangeIdentity(w.network)),
      account: x.account.toLowerCase() as Address,
      signer: signer ? (signer.toLowerCase() as Address) : null,
      cloid,
      action,
      usdAtoms,
      ...(x.destination ? { destination: x.destination } : {}),
      title: x.title,
      preview: x.preview,
    }
    return { intent, request }
  }

  private async trade(w: WriteSide, intent: WriteIntent, request: SubmitRequest): Promise<{ outcome: WriteOutcome; leaves: Leaf[] }> {
    const prepared = await w.submitter.prepare(request)
    const entry = (await this.beforeSend(intent, prepared)) ?? prepared
    const sent = this.gate.sending?.(intent)
    try {
      const r = await w.submitter.send(entry, request.lane ?? 'operator').finally(() => sent?.())
      const outcome = outcomeOfEntry(r.submission)
      await this.settled(intent, r.submission)
      return { outcome, leaves: r.leaves }
    } catch (e) {
      await this.settled(intent, this.d.journal.get(entry.id) ?? entry)
      throw e
    }
  }

  private async earn(
    w: WriteSide,
    intent: WriteIntent,
    x: DescribedWrite<unknown>,
  ): Promise<{ outcome: WriteOutcome; leaves: Leaf[]; earn: EarnWriteResult }> {
    if (x.signing.channel !== 'earn') throw new DeskError('Internal', 'not an earn write')
    const signed = await x.signing.sign(w.earnSigning)
    const pending = EarnSigningClient.pendingOf(signed)
    let r = signed
    if (pending) {
      await this.beforeSend(intent, pending)
      // The earn client may resend the same bytes until their deadline, longer than one lease: team mode keeps its lease meanwhile.
      const sending = this.gate.sending?.(intent)
      try {
        r = await w.earn.sendWrite(pending).finally(() => sending?.())
      } catch (e) {
        await this.settled(intent, this.d.journal.get(pending.id) ?? pending)
        throw e
      }
    }
    await this.settled(intent, r.submission)
    return { outcome: outcomeOfEntry(r.submission), leaves: [], earn: r }
  }

  /**
   * The decision step's last word before the bytes leave; a refusal leaves a fresh entry journaled as
   * never sent. When the team store already holds signed bytes for this write (another desk, or this
   * one before a crash, signed it: TeamAlreadySigned), those same bytes are what is sent (returned as
   * the entry to send), never this new signature: the exchange's nonce rules refuse a duplicate.
   */
  private async beforeSend(intent: WriteIntent, entry: Submission): Promise<Submission | void> {
    if (!this.gate.beforeSend) return
    const signed: SignedWrite = { intent, journalId: entry.id, body: entry.body, nonce: entry.nonce ?? '' }
    try {
      const r = await this.gate.beforeSend(signed)
      if (r?.proposalId) this.d.journal.linkProposal(entry.id, r.proposalId)
    } catch (e) {
      if (e instanceof DeskError && e.code === 'TeamAlreadySigned' && entry.channel === 'trade' && typeof e.details?.body === 'string') {
        const stored = this.storedBytes(entry, e.details.body, String(e.details.nonce ?? ''))
        const id = e.details.proposalId
        return typeof id === 'string' && stored.proposalId !== id ? this.d.journal.linkProposal(stored.id, id) : stored
      }
      const reason = e instanceof Error ? e.message : String(e)
      // Only an entry this call signed is provably unsent; a resent one (already `sent`) is left to the reconciler.
      if (entry.state === 'signed')
        this.d.journal.update(entry.id, { state: 'reconciled', finalStatus: 'notsent', note: `stopped before sending: ${reason}` })
      throw new DeskError('WriteNotSent', `${intent.title}: signed but not sent (${reason}); the journal records it as never sent.`, {
        journalId: entry.id,
        cloid: entry.key,
      })
    }
  }

  /** The journal entry that carries the team store's signed bytes (this desk's own, if it already journaled them). */
  private storedBytes(fresh: Submission, body: string, nonce: string): Submission {
    if (fresh.state === 'signed')
      this.d.journal.update(fresh.id, {
        state: 'reconciled',
        finalStatus: 'notsent',
        note: 'not sent: the proposal was already signed; its stored bytes are sent instead',
      })
    const own = this.d.journal.list({ network: fresh.network, key: fresh.key }).find((s) => s.body === body)
    if (own) return own
    try {
      return this.d.journal.record({
        channel: 'trade',
        key: fresh.key,
        network: fresh.network,
        account: fresh.account,
        signer: fresh.signer,
        actionType: fresh.actionType,
        summary: fresh.summary,
        nonce,
        businessNonce: fresh.businessNonce,
        body,
        submitHeight: fresh.submitHeight,
      })
    } catch (e) {
      // This journal already used a higher nonce for the key (it just signed one): the stored bytes
      // cannot be journaled here, so this desk sends nothing; the desk that stored them sends (or a takeover does).
      if (e instanceof DeskError && e.code === 'NonceConflict')
        throw new DeskError(
          'TeamAlreadySigned',
          `${fresh.summary}: another desk already signed this proposal; its stored bytes are sent by that desk, this desk sent nothing`,
          { journalId: fresh.id, cloid: fresh.key },
        )
      throw e
    }
  }

  private async settled(intent: WriteIntent, s: Submission): Promise<void> {
    try {
      await this.gate.settled?.(intent, { state: s.state, finalStatus: s.finalStatus, code: s.code })
    } catch (e) {
      // The write's outcome stands whatever the hook does; the hook's failure is only logged.
      console.warn('write pipeline: settled hook failed:', e instanceof Error ? e.message : String(e))
    }
  }
}

function outcomeOfEntry(s: Submission): WriteOutcome {
  return { journalId: s.id, cloid: s.key, state: s.state, finalStatus: s.finalStatus, code: s.code, txHash: s.txHash, traceId: s.traceId }
}

function jsonSafe(action: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(action, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown>
}

/** What a proposal would sign, as a submission view: no journal entry exists (id ''), nothing was sent. */
function proposedView(i: WriteIntent): SubmissionView {
  return {
    id: '',
    cloid: i.cloid,
    network: i.network,
    account: i.account,
    signer: i.signer ?? i.account,
    actionType: String(i.action.type ?? i.kind),
    summary: i.title,
    nonce: null,
    state: 'proposed',
    outcome: 'pending',
    code: null,
    finalStatus: null,
    advice: 'Waiting for approvals: nothing was signed or sent.',
    evidence: null,
    acknowledgedAt: null,
    txHash: null,
    traceId: null,
    createdAt: Date.now(),
    updatedAt: Date.now(),
    history: [],
  }
}
