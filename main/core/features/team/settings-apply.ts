/**
 * The apply-and-record step of an approved settings proposal, on the desk it names, exactly once:
 * the quorum is verified and the exact change appended as the `signed` entry (quorum-signing.ts)
 * before anything changes locally; then the change is applied and its outcome recorded for every
 * desk (a refusal as `rejected` with its code). A desk stopped between the two finishes it after a
 * restart without applying it twice.
 */
import { DeskError } from '../../errors/desk-error'
import { canonicalJson, isSettingsKind, type Proposal } from '../../team'
import type { GateContext, ProposalOutcome } from './gate-context'
import { leaseHeld, refused } from './gate-refusals'
import { recordOutcome } from './outcome-record'
import { NO_NONCE, signApproved } from './quorum-signing'

/** A second call finds the `signed` entry: TeamAlreadySigned, nothing applied again. */
export async function applySettings(ctx: GateContext, proposalId: string, apply: (p: Proposal) => Promise<void>): Promise<ProposalOutcome> {
  const state = await ctx.sync()
  const p = state.proposals.get(proposalId)
  if (!p) throw new DeskError('TeamProposalNotFound', `no verified proposal ${proposalId.slice(0, 10)}…`)
  if (!isSettingsKind(p.kind)) throw refused(`proposal ${proposalId.slice(0, 10)}… is not a settings change`)
  if (p.action.desk !== ctx.deskId)
    throw new DeskError(
      'TeamSettingsOtherDesk',
      `proposal ${proposalId.slice(0, 10)}… changes the settings of desk ${String(p.action.desk)}, not this one (${ctx.deskId})`,
    )
  await signApproved(ctx, p, { body: canonicalJson({ action: p.action }), nonce: NO_NONCE, refusal: 'nothing was applied' })
  await ctx.sync()
  return settle(ctx, p, async () => {
    await apply(p)
    return 'applied'
  })
}

/**
 * A settings change this desk recorded as `signed` but never settled (the desk stopped between the
 * two): under the lease (another desk's live lease refuses), `inEffect` reads this desk's settings;
 * found in effect -> recorded applied, never applied twice; not in effect -> applied now (its
 * quorum was verified before the `signed` entry). Null when there is nothing to finish.
 */
export async function finishSettings(
  ctx: GateContext,
  proposalId: string,
  inEffect: (p: Proposal) => Promise<boolean>,
  apply: (p: Proposal) => Promise<void>,
): Promise<ProposalOutcome | null> {
  const p = await ctx.store.withLease(proposalId, async (tx, lease) => {
    const state = await ctx.syncVia(tx)
    const cur = state.proposals.get(proposalId)
    if (!cur || !isSettingsKind(cur.kind) || cur.action.desk !== ctx.deskId) return null
    if (!cur.signed || cur.signed.by !== ctx.operatorAddress || cur.outcomes.length > 0) return null
    if (lease.live && lease.holder !== ctx.deskId) throw leaseHeld(lease)
    await tx.take(ctx.deskId, ctx.leaseMs)
    return cur
  })
  if (!p) return null
  return settle(ctx, p, async () => {
    if (await inEffect(p)) return 'applied (found in effect after a restart)'
    await apply(p)
    return 'applied'
  })
}

/** Runs a settings change's application and records its outcome for every desk (a refusal as `rejected` with its code). */
async function settle(ctx: GateContext, p: Proposal, run: () => Promise<string>): Promise<ProposalOutcome> {
  let outcome: ProposalOutcome
  try {
    outcome = { state: 'accepted', finalStatus: await run(), code: null }
  } catch (e) {
    const code = e instanceof DeskError ? e.code : 'Internal'
    outcome = { state: 'rejected', finalStatus: 'not applied', code, evidence: e instanceof Error ? e.message : null }
  }
  await recordOutcome(ctx, p.id, outcome)
  return outcome
}
