/**
 * What a takeover finds and claims: signed proposals without a final outcome, and the execution
 * lease of one of them, returning its stored bytes to re-send (never a new signature).
 */
import { isFinalOutcome, isSettingsKind, type Proposal } from '../../team'
import type { GateContext, StoredSignature } from './gate-context'
import { leaseHeld } from './gate-refusals'

const stored = (proposalId: string, s: NonNullable<Proposal['signed']>): StoredSignature => ({
  proposalId,
  body: s.body,
  nonce: s.nonce,
  by: s.by,
  seq: s.seq,
})

/** The bytes stored for a proposal, from the verified chain (null: nothing was signed yet). */
export async function signedBytesFor(ctx: GateContext, proposalId: string): Promise<StoredSignature | null> {
  const state = await ctx.sync()
  const s = state.proposals.get(proposalId)?.signed
  return s ? stored(proposalId, s) : null
}

/** Signed proposals without a final outcome: what a takeover may have to finish. */
export async function unsettled(ctx: GateContext): Promise<Proposal[]> {
  const state = await ctx.sync()
  return [...state.proposals.values()].filter((p) => {
    const last = p.outcomes.at(-1)
    // A settings change is applied by the desk it names, never re-sent to an exchange.
    return p.signed !== null && !(last && isFinalOutcome(last.state)) && !isSettingsKind(p.kind)
  })
}

/**
 * A desk taking over after a crash or a lease expiry: takes the lease when it is free and returns
 * the stored bytes to re-send (never a new signature). TeamLeaseHeld while another desk holds it.
 */
export function takeOver(ctx: GateContext, proposalId: string): Promise<StoredSignature | null> {
  return ctx.store.withLease(proposalId, async (tx, lease) => {
    const state = await ctx.syncVia(tx)
    const s = state.proposals.get(proposalId)?.signed
    if (!s) return null
    if (lease.live && lease.holder !== ctx.deskId) throw leaseHeld(lease)
    await tx.take(ctx.deskId, ctx.leaseMs)
    return stored(proposalId, s)
  })
}

/**
 * The takeover claim: a signed proposal with no final outcome whose execution lease has expired
 * (whoever held it, this desk included: a live lease is a send in progress) is leased to this desk.
 * Returns the stored bytes to re-send (never a new signature); null when there is nothing to take
 * over; TeamLeaseHeld while a lease runs. Two desks racing here: the lease row serialises them, the
 * second sees the first one's live lease.
 */
export function claimExpired(ctx: GateContext, proposalId: string): Promise<StoredSignature | null> {
  return ctx.store.withLease(proposalId, async (tx, lease) => {
    const state = await ctx.syncVia(tx)
    const p = state.proposals.get(proposalId)
    const s = p?.signed
    if (!p || !s) return null
    const last = p.outcomes.at(-1)
    if (last && isFinalOutcome(last.state)) return null
    if (lease.live) throw leaseHeld(lease)
    await tx.take(ctx.deskId, ctx.leaseMs)
    return stored(proposalId, s)
  })
}
