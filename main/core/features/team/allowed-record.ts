/**
 * A write the team policy allows outright, recorded in the chain as it is signed: a proposal that
 * needs no approval (proposals.ts, RECORDED_KINDS), then its signed bytes and outcome as for any
 * proposal. So the rolling window counts it on every desk (many small allowed writes reach a
 * window rule like one large one), the audit log holds it, and another desk can finish it from the
 * stored bytes after a crash. It is recorded only once the operator confirmed and the bytes are
 * signed, so a declined write leaves nothing. The write is judged again on the freshest chain: a
 * policy change, or another desk's write that puts the window past the allow rule since the
 * decision, refuses it before anything is sent.
 */
import { DeskError } from '../../errors/desk-error'
import {
  RECORDED_KINDS,
  RECORDED_TTL_MS,
  evaluate,
  judgedUsd,
  proposalPayload,
  rollingWindowUsd,
  type ActionKind,
  type Proposal,
} from '../../team'
import type { WriteIntent } from '../../writes/decision'
import type { GateContext } from './gate-context'
import { writeFields } from './write-fields'

export const isRecordedKind = (intent: WriteIntent) => intent.cloid !== '' && RECORDED_KINDS.includes(intent.kind as ActionKind)

/** Appends the allowed write's record; its proposal as verified (null when this kind is not recorded). */
export async function recordAllowed(ctx: GateContext, intent: WriteIntent): Promise<Proposal | null> {
  if (!isRecordedKind(intent)) return null
  const fields = writeFields(intent, 'recorded')
  const { kind, account, destination } = fields
  const entry = await ctx.append('proposal', (state) => {
    if (!state.policy) throw new DeskError('TeamPolicyBlocks', 'the team has no policy yet: every write is blocked')
    const at = ctx.now()
    const windowUsd = rollingWindowUsd(state, intent, at)
    const d = evaluate(state.policy.rules, {
      kind,
      account,
      usd: judgedUsd(kind, intent.usdAtoms),
      windowUsd,
      destination: destination ?? undefined,
    })
    if (d.effect !== 'allow')
      throw new DeskError(
        'TeamPolicyChanged',
        `since this write was allowed, the team policy or the account's 24 h total changed: rule ${d.rule ?? 'none'} now says ${d.effect}; start the ` +
          `write again`,
        { rule: d.rule },
      )
    return proposalPayload({
      ...fields,
      windowUsd,
      policyVersion: state.policy.version,
      rule: d.rule,
      needs: { count: 0, roles: [] },
      at,
      expiresAt: at + RECORDED_TTL_MS,
    })
  })
  // append() verified the chain up to this entry: no second read.
  return ctx.chain.report().state.proposals.get(entry.digest) ?? null
}
