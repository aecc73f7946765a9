/**
 * Team mode's decision step (WriteGate), composed. Everything it decides comes from the team chain
 * as this desk verified it (signatures, hash links, roster, policy, lifecycle), never from a
 * database flag. Each job is its own module:
 *  - decide (write-decision.ts): the policy's first matching rule allows, blocks, or needs
 *    approvals, and then the write becomes a signed proposal; the approved cloid comes back allowed,
 *    unless the exchange already executed it (executed-check.ts: its outcome recorded, nothing signed).
 *  - beforeSend (quorum-signing.ts): a write allowed outright is first recorded (allowed-record.ts);
 *    under the proposal's execution lease the quorum is verified, the rows it rests on re-read
 *    (pinned-rows.ts), and the signed bytes appended before they leave. Bytes already stored come back in TeamAlreadySigned: re-sent, never re-signed.
 *  - sending (lease-renewal.ts), settled/recordOutcome (outcome-record.ts), takeOver/claimExpired
 *    (takeover-claims.ts), approve/reject (proposal-votes.ts), expire (proposal-expiry.ts).
 *  - decideSettings (settings-decision.ts) and applySettings/finishSettings (settings-apply.ts):
 *    guardrail settings changes under the same policy.
 * A broken chain refuses every team write (TeamChainTampered names the first bad entry); an
 * unreachable store refuses them too (TeamStoreUnreachable) and loses nothing.
 */
import { proposalStatus, type Proposal, type SettingsChange, type StoredRow, type TeamState } from '../../team'
import type { SignedWrite, WriteDecision, WriteGate, WriteIntent } from '../../writes/decision'
import { GateContext, type ProposalOutcome, type StoredSignature, type TeamGateOptions } from './gate-context'
import { recordAllowed } from './allowed-record'
import { LeaseRenewal } from './lease-renewal'
import { recordOutcome, settledWrite } from './outcome-record'
import { expireDue, expireProposal } from './proposal-expiry'
import { approveProposal, rejectProposal } from './proposal-votes'
import { NO_NONCE, signApproved } from './quorum-signing'
import { applySettings, finishSettings } from './settings-apply'
import { decideSettings, type SettingsDecision } from './settings-decision'
import { claimExpired, signedBytesFor, takeOver, unsettled } from './takeover-claims'
import type { CustodyChange } from '../vault'
import { makeVaultChange, vaultChangeProposal } from './vault-changes'
import { VerifiedChain } from './verified-chain'
import { unlessExecuted } from './executed-check'
import { block } from './gate-refusals'
import { decideWrite } from './write-decision'

export type { ProposalOutcome, StoredSignature, TeamGateOptions } from './gate-context'
export { NO_NONCE } from './quorum-signing'

export class TeamGate implements WriteGate {
  private readonly chain: VerifiedChain
  private readonly ctx: GateContext
  private readonly renewal: LeaseRenewal

  constructor(o: TeamGateOptions) {
    this.chain = new VerifiedChain(o.genesisDigest, o.heads ?? null)
    this.ctx = new GateContext(o, this.chain)
    this.renewal = new LeaseRenewal(o.store, o.deskId, this.ctx.leaseMs)
  }

  get operatorAddress(): string {
    return this.ctx.operatorAddress
  }

  get desk(): string {
    return this.ctx.deskId
  }

  /** The chain as last verified (no read): the roster, policy and proposals; `broken` names the first bad entry. */
  report(): ReturnType<VerifiedChain['report']> {
    return this.chain.report()
  }

  /** Reads and verifies every entry after the last verified one; a broken chain throws TeamChainTampered. */
  sync(): Promise<TeamState> {
    return this.ctx.sync()
  }

  /** The policy's decision; an approved proposal's write is first checked against the exchange (executed-check.ts). */
  async decide(intent: WriteIntent): Promise<WriteDecision> {
    const d = await decideWrite(this.ctx, intent)
    if (d.verdict === 'allow' && d.proposalId !== undefined) return unlessExecuted(this.ctx, d.proposalId, intent, d)
    // A team-held account's allowed write is recorded before it is signed: the holders release
    // their shares only for a proposal of the chain (custody.ts), never for a write they cannot see.
    if (d.verdict === 'allow' && intent.signer === intent.account && this.ctx.o.custodyHeld?.(intent.account)) {
      const p = await recordAllowed(this.ctx, intent)
      if (!p)
        return block(
          'CustodyNotRecordable',
          `${intent.kind} writes are not recorded in the team chain, so the holders of ${intent.account}'s key cannot release a share for one`,
        )
      return { verdict: 'allow', proposalId: p.id }
    }
    return d
  }

  /**
   * Takes the proposal's execution lease and stores the signed bytes before they leave. Exactly one
   * desk succeeds per proposal; any other gets TeamAlreadySigned with the stored bytes.
   */
  async beforeSend(signed: SignedWrite): Promise<{ proposalId: string } | void> {
    const state = await this.ctx.sync()
    // Allowed by the policy outright: recorded now that it is signed (allowed-record.ts); an order, say, is not.
    const p = this.ctx.proposalFor(state, signed.intent) ?? (await recordAllowed(this.ctx, signed.intent))
    if (!p) return
    // An earn request carries no exchange nonce (its bytes are bound by user_nonce / operation id and deadline).
    const nonce = signed.nonce === '' ? NO_NONCE : signed.nonce
    await signApproved(this.ctx, p, { body: signed.body, nonce, refusal: 'nothing may be sent' })
    this.renewal.held(signed.intent.cloid, p.id)
    await this.ctx.sync()
    return { proposalId: p.id }
  }

  /** Keeps this desk's execution lease while the write's stored bytes are being sent; call the result when the send ends. */
  sending(intent: WriteIntent): () => void {
    return this.renewal.sending(intent.cloid)
  }

  /** The pinned-row re-read before signing (pinned-rows.ts): TeamChainTampered names the first changed row. */
  recheck(p: Proposal, read: (seqs: bigint[]) => Promise<StoredRow[]> = (seqs) => this.ctx.store.readRows(seqs)): Promise<void> {
    return this.chain.recheck(p, read)
  }

  settled(intent: WriteIntent, outcome: { state: string; finalStatus: string | null; code: string | null }): Promise<void> {
    return settledWrite(this.ctx, intent, outcome)
  }

  signedBytesFor(proposalId: string): Promise<StoredSignature | null> {
    return signedBytesFor(this.ctx, proposalId)
  }

  takeOver(proposalId: string): Promise<StoredSignature | null> {
    return takeOver(this.ctx, proposalId)
  }

  claimExpired(proposalId: string): Promise<StoredSignature | null> {
    return claimExpired(this.ctx, proposalId)
  }

  recordOutcome(proposalId: string, o: ProposalOutcome): Promise<void> {
    return recordOutcome(this.ctx, proposalId, o)
  }

  unsettled(): Promise<Proposal[]> {
    return unsettled(this.ctx)
  }

  approve(proposalId: string): Promise<void> {
    return approveProposal(this.ctx, proposalId)
  }

  /** A reason is required (the chain refuses a rejection without one). */
  reject(proposalId: string, reason: string): Promise<void> {
    return rejectProposal(this.ctx, proposalId, reason)
  }

  expire(proposalId: string): Promise<void> {
    return expireProposal(this.ctx, proposalId)
  }

  /** A custody change of this desk's vault, judged and recorded in the chain (vault-changes.ts); WriteProposed while it waits for approvals. */
  async vaultChange<T>(change: CustodyChange, apply: () => Promise<T>): Promise<T> {
    const p = await vaultChangeProposal(this.ctx, change)
    return makeVaultChange(this.ctx, p, apply)
  }

  expireDue(): Promise<number> {
    return expireDue(this.ctx)
  }

  decideSettings(
    change: SettingsChange,
    where: { network: string; exchange: string; preview: string[] },
    beforePropose: () => Promise<void> = async () => {},
  ): Promise<SettingsDecision> {
    return decideSettings(this.ctx, change, where, beforePropose)
  }

  applySettings(proposalId: string, apply: (p: Proposal) => Promise<void>): Promise<ProposalOutcome> {
    return applySettings(this.ctx, proposalId, apply)
  }

  finishSettings(
    proposalId: string,
    inEffect: (p: Proposal) => Promise<boolean>,
    apply: (p: Proposal) => Promise<void>,
  ): Promise<ProposalOutcome | null> {
    return finishSettings(this.ctx, proposalId, inEffect, apply)
  }

  /** Verified proposals with their status now (for the approvals queue). */
  async proposals(): Promise<{ proposal: Proposal; status: ReturnType<typeof proposalStatus> }[]> {
    const state = await this.ctx.sync()
    const now = this.ctx.now()
    return [...state.proposals.values()].map((proposal) => ({ proposal, status: proposalStatus(proposal, state.roster!, now) }))
  }
}
