/**
 * The decision step for a write: the policy's first matching rule allows, blocks, or needs
 * approvals; then the write becomes a signed proposal (verdict 'propose'). The same cloid comes back
 * once its quorum is met (counted against the current roster) and is allowed with its proposal id.
 */
import { DeskError } from '../../errors/desk-error'
import {
  ACTION_KINDS,
  TeamErrors,
  canonicalJson,
  countingApprovals,
  evaluate,
  judgedUsd,
  proposalPayload,
  proposalStatus,
  rollingWindowUsd,
  unknownUsdNote,
  type ActionKind,
  type Proposal,
  type SignedEntry,
  type TeamState,
} from '../../team'
import type { WriteDecision, WriteIntent } from '../../writes/decision'
import type { GateContext } from './gate-context'
import { block } from './gate-refusals'
import { expireProposal } from './proposal-expiry'
import { writeFields, type WriteFields } from './write-fields'

export async function decideWrite(ctx: GateContext, intent: WriteIntent): Promise<WriteDecision> {
  const state = await ctx.sync()
  const existing = ctx.proposalFor(state, intent)
  if (existing) return decideExisting(ctx, state, existing, intent)
  if (!ACTION_KINDS.includes(intent.kind as ActionKind))
    return block(TeamErrors.refused, `the team policy has no action kind ${intent.kind}`)
  if (!state.policy) return block('TeamPolicyBlocks', 'the team has no policy yet: every write is blocked')
  const usd = judgedUsd(intent.kind, intent.usdAtoms)
  // A write of unknown value has an unknown window too: the chain reads an entry's window total as
  // "every value was known" (policy.ts usdReadingOf), so it is never recorded beside an unknown value.
  const windowUsd = usd === null ? null : ctx.o.windowUsd ? await ctx.o.windowUsd(intent) : rollingWindowUsd(state, intent, ctx.now())
  const destination = intent.destination?.address.toLowerCase()
  const d = evaluate(state.policy.rules, { kind: intent.kind as ActionKind, account: intent.account, usd, windowUsd, destination })
  if (d.effect === 'allow') return { verdict: 'allow' }
  // Said with the decision, so a write refused or held only because its value was unknown says why.
  const unknown = unknownUsdNote({ kind: intent.kind, usd: intent.usdAtoms, windowUsd })
  const why = unknown ? `; ${unknown}` : ''
  if (d.effect === 'block')
    return block(
      'TeamPolicyBlocks',
      `${d.rule ? `team policy rule ${d.rule} blocks this write` : 'no team policy rule allows this write'}${why}`,
    )
  // Approval happens later, so the approved write must be recognisable when it comes back: by its cloid.
  if (intent.cloid === '')
    return block(TeamErrors.refused, `rule ${d.rule} needs approvals, but this write carries no cloid to match it when approved`)
  let fields: WriteFields
  try {
    fields = writeFields(intent, 'proposed')
  } catch (e) {
    return block(TeamErrors.refused, (e as Error).message)
  }
  const at = ctx.now()
  const replay = ctx.o.replayOf?.(intent)
  const body = {
    ...fields,
    windowUsd,
    policyVersion: state.policy.version,
    rule: d.rule,
    needs: { count: d.count, roles: d.roles },
    at,
    expiresAt: at + ctx.proposalTtlMs,
    ...(replay ? { replay } : {}),
  }
  let entry: SignedEntry
  try {
    entry = await ctx.append('proposal', () => proposalPayload(body))
  } catch (e) {
    if (e instanceof DeskError && e.code === TeamErrors.refused) return block(e.code, e.message)
    throw e
  }
  return {
    verdict: 'propose',
    proposalId: entry.digest,
    needs: `${d.count} approval(s) from ${d.roles.join(' or ')} (rule ${d.rule})${why}`,
    expiresAt: body.expiresAt,
  }
}

/** A write whose cloid already has a proposal: the same write is judged by that proposal's status. */
async function decideExisting(ctx: GateContext, state: TeamState, p: Proposal, intent: WriteIntent): Promise<WriteDecision> {
  const same =
    p.network === intent.network &&
    p.exchange === intent.exchange &&
    p.account === intent.account.toLowerCase() &&
    p.kind === intent.kind &&
    canonicalJson(p.action) === canonicalJson(intent.action) &&
    p.destination === (intent.destination?.address.toLowerCase() ?? null)
  if (!same)
    return block('TeamProposalMismatch', `cloid ${intent.cloid} belongs to proposal ${p.id.slice(0, 10)}…, which is a different write`)
  const status = proposalStatus(p, state.roster!, ctx.now())
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
      await expireProposal(ctx, p.id).catch(() => undefined) // recorded for everyone when possible; refused either way
      return block('TeamProposalExpired', `proposal ${p.id.slice(0, 10)}… expired at ${new Date(p.expiresAt).toISOString()}`)
    case 'signed':
    case 'final':
      return block(
        TeamErrors.alreadySigned,
        `proposal ${p.id.slice(0, 10)}… was already signed: re-send its stored bytes, never a new signature`,
      )
  }
}
