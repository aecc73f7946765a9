/** An operator's approval or rejection of a proposal, appended as this desk's operator (the chain's rules checked first, typed refusal otherwise). */
import type { GateContext } from './gate-context'

export async function approveProposal(ctx: GateContext, proposalId: string): Promise<void> {
  await ctx.append('approval', (s) => ({
    proposal: proposalId,
    // the version the proposal was judged under: the chain refuses an approval naming another
    policyVersion: s.proposals.get(proposalId)?.policyVersion ?? 0,
    at: ctx.now(),
  }))
}

export async function rejectProposal(ctx: GateContext, proposalId: string, reason: string): Promise<void> {
  await ctx.append('rejection', () => ({ proposal: proposalId, reason, at: ctx.now() }))
}
