/**
 * The decision step for a guardrail settings change of this desk (address book, limits, resume):
 * the team policy's first matching rule allows (the caller applies it now), blocks
 * (TeamPolicyBlocks naming the rule), or needs approvals: a signed proposal carrying the exact
 * change, or the one already open or approved for the same change (asking twice makes one
 * proposal). The halt never comes here (it stays immediate).
 */
import { DeskError } from '../../errors/desk-error'
import {
  DESK_WIDE_ACCOUNT,
  TeamErrors,
  countingApprovals,
  evaluate,
  proposalPayload,
  proposalStatus,
  settingsAction,
  settingsDirection,
  settingsKey,
  settingsKeyBase,
  settingsKind,
  settingsTitle,
  type Proposal,
  type SettingsChange,
  type SignedEntry,
} from '../../team'
import type { GateContext } from './gate-context'
import { refused } from './gate-refusals'

export type SettingsDecision = { verdict: 'allow' } | { verdict: 'propose'; proposalId: string; needs: string; expiresAt: number }

export async function decideSettings(
  ctx: GateContext,
  change: SettingsChange,
  where: { network: string; exchange: string; preview: string[] },
  beforePropose: () => Promise<void>,
): Promise<SettingsDecision> {
  const state = await ctx.sync()
  if (!state.policy) throw new DeskError('TeamPolicyBlocks', 'the team has no policy yet: every settings change is blocked')
  const kind = settingsKind(change)
  const action = settingsAction(change, ctx.deskId)
  const destination = change.op === 'address.add' ? change.address.toLowerCase() : undefined
  const direction = settingsDirection(change)
  const d = evaluate(state.policy.rules, { kind, account: DESK_WIDE_ACCOUNT, usd: 0n, windowUsd: 0n, destination, direction })
  if (d.effect === 'allow') return { verdict: 'allow' }
  if (d.effect === 'block')
    throw new DeskError(
      'TeamPolicyBlocks',
      d.rule ? `team policy rule ${d.rule} blocks this change (${kind})` : `no team policy rule allows this change (${kind})`,
      { rule: d.rule, kind },
    )
  const base = settingsKeyBase(settingsKey(where.network, where.exchange, action, 0))
  const same = [...state.proposals.values()].filter((p) => p.cloid.startsWith(`${base}:`))
  const now = ctx.now()
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
    entry = await ctx.append('proposal', (s) => {
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
        expiresAt: at + ctx.proposalTtlMs,
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
    expiresAt: ctx.now() + ctx.proposalTtlMs,
  }
}
