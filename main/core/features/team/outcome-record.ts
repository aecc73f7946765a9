/**
 * A signed proposal's outcome, appended for every desk: the pipeline's own (settled) or a
 * takeover's (recordOutcome). A final outcome ends this desk's execution lease; a non-final one
 * keeps it until it expires, then any desk may take over again.
 */
import { MAX_EVIDENCE_CHARS, OUTCOME_STATES, isFinalOutcome, type OutcomeState } from '../../team'
import type { WriteIntent } from '../../writes/decision'
import type { GateContext, ProposalOutcome } from './gate-context'
import { refused } from './gate-refusals'

/** The write pipeline's outcome of a write that went out under a proposal (nothing when none did). */
export async function settledWrite(
  ctx: GateContext,
  intent: WriteIntent,
  outcome: { state: string; finalStatus: string | null; code: string | null },
): Promise<void> {
  const state = await ctx.sync()
  const p = ctx.proposalFor(state, intent)
  if (!p?.signed) return
  if (!OUTCOME_STATES.includes(outcome.state as OutcomeState) || outcome.state === 'expired')
    throw refused(`unknown outcome state ${outcome.state}`)
  await ctx.append('outcome', () => ({
    proposal: p.id,
    state: outcome.state,
    finalStatus: outcome.finalStatus,
    code: outcome.code,
    at: ctx.now(),
  }))
  const s = outcome.state as OutcomeState
  if (s !== 'unknown' && s !== 'sent' && s !== 'signed') await ctx.store.releaseLease(p.id, ctx.deskId)
}

/** A takeover's (or a settings change's) outcome, its evidence kept to MAX_EVIDENCE_CHARS. */
export async function recordOutcome(ctx: GateContext, proposalId: string, o: ProposalOutcome): Promise<void> {
  if (!OUTCOME_STATES.includes(o.state) || o.state === 'expired') throw refused(`unknown outcome state ${o.state}`)
  const evidence = o.evidence ? o.evidence.slice(0, MAX_EVIDENCE_CHARS) : null
  await ctx.append('outcome', () => ({
    proposal: proposalId,
    state: o.state,
    finalStatus: o.finalStatus?.slice(0, 200) ?? null,
    code: o.code?.slice(0, 200) ?? null,
    at: ctx.now(),
    ...(evidence ? { evidence } : {}),
  }))
  if (isFinalOutcome(o.state)) await ctx.store.releaseLease(proposalId, ctx.deskId)
}
