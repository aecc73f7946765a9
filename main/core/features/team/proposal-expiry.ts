/** Unsigned proposals past their expiry reach their final state: `expired`, recorded for every desk. */
import { proposalStatus } from '../../team'
import type { GateContext } from './gate-context'

export async function expireProposal(ctx: GateContext, proposalId: string): Promise<void> {
  await ctx.append('outcome', () => ({ proposal: proposalId, state: 'expired', finalStatus: null, code: null, at: ctx.now() }))
}

/** Records every unsigned proposal past its expiry as expired; returns how many. */
export async function expireDue(ctx: GateContext): Promise<number> {
  const state = await ctx.sync()
  const now = ctx.now()
  let n = 0
  for (const p of state.proposals.values()) {
    if (proposalStatus(p, state.roster!, now) === 'expired' && p.outcomes.length === 0 && !p.signed && !p.rejection) {
      await expireProposal(ctx, p.id)
      n++
    }
  }
  return n
}
