/**
 * Custody changes of a member's vault, under the team: exporting a key as a keystore, adding or
 * removing an owner key, changing the vault passphrase. On a vault bound to a team (binding.ts)
 * each is judged by the team policy (kinds key_export, key_add, key_remove, vault_passphrase) and
 * recorded in the chain in every case, as a write is: a proposal (needing no approval when the
 * policy allows it outright, or waiting for its approvals), then a `signed` entry naming the change
 * just before it is made, then its outcome. So every desk sees that a key left a vault, and a team
 * can require a second person before it does. A removed member's vault makes no such change until
 * it leaves the team (desk team leave). What this cannot stop, a copied vault used with its
 * passphrase outside the desk, is said in docs/team-mode.md.
 */
import { DeskError } from '../../errors/desk-error'
import {
  DESK_WIDE_ACCOUNT,
  RECORDED_TTL_MS,
  countingApprovals,
  evaluate,
  proposalPayload,
  proposalStatus,
  rollingWindowUsd,
  type Proposal,
  type ProposalBody,
  type TeamState,
} from '../../team'
import type { CustodyChange } from '../vault'
import type { GateContext } from './gate-context'
import { NO_NONCE, signApproved } from './quorum-signing'
import { recordOutcome } from './outcome-record'

const NETWORK = 'vault'

function keyBase(deskId: string, c: CustodyChange): string {
  return `vault:${deskId}:${c.kind}:${c.account ?? 'desk'}`
}

const proposed = (p: Proposal, state: TeamState) =>
  new DeskError(
    'WriteProposed',
    `${p.title}: waiting for approvals (${countingApprovals(p, state.roster!).length} of ${p.needs.count} from ${p.needs.roles.join(' or ')}, rule ` +
      `${p.rule}); nothing was changed. Run it again once approved.`,
    { proposalId: p.id, needs: `${p.needs.count} approval(s) from ${p.needs.roles.join(' or ')} (rule ${p.rule})`, expiresAt: p.expiresAt },
  )

/**
 * The change's proposal, ready to be signed: one approved earlier for the same change, or a new one
 * the policy allows outright (recorded, no approvals). A change that needs approvals becomes a
 * proposal and WriteProposed is thrown (nothing changes); a blocked one is TeamPolicyBlocks.
 */
export async function vaultChangeProposal(ctx: GateContext, c: CustodyChange): Promise<Proposal> {
  const state = await ctx.sync()
  if (!state.policy) throw new DeskError('TeamPolicyBlocks', 'the team has no policy yet: every vault change is blocked')
  const base = keyBase(ctx.deskId, c)
  const now = ctx.now()
  const same = [...state.proposals.values()].filter((p) => p.cloid.startsWith(`${base}:`) && p.initiator === ctx.operatorAddress)
  for (const p of same) {
    const status = proposalStatus(p, state.roster!, now)
    if (status === 'approved' && p.needs.count > 0) return p
    if (status === 'open') throw proposed(p, state)
  }
  const account = c.account ?? DESK_WIDE_ACCOUNT
  const entry = await ctx.append('proposal', (s) => {
    const at = ctx.now()
    const n = [...s.proposals.values()].filter((p) => p.cloid.startsWith(`${base}:`)).length
    const draft: ProposalBody = {
      network: NETWORK,
      exchange: `desk:${ctx.deskId}`,
      account,
      signer: null,
      kind: c.kind,
      action: { op: c.kind, account, desk: ctx.deskId },
      cloid: `${base}:${n}`,
      title: c.title,
      preview: [c.title, `on desk ${ctx.deskId}`],
      usd: 0n, // a custody change moves no value by itself
      windowUsd: 0n,
      destination: null,
      policyVersion: s.policy!.version,
      rule: '',
      needs: { count: 0, roles: [] },
      at,
      expiresAt: at + RECORDED_TTL_MS,
    }
    const windowUsd = rollingWindowUsd(s, { ...draft, usdAtoms: 0n }, at)
    const d = evaluate(s.policy!.rules, { kind: c.kind, account, usd: 0n, windowUsd })
    if (d.effect === 'block')
      throw new DeskError(
        'TeamPolicyBlocks',
        d.rule
          ? `team policy rule ${d.rule} blocks this vault change (${c.kind})`
          : `no team policy rule allows this vault change (${c.kind})`,
        { rule: d.rule, kind: c.kind },
      )
    const needs = d.effect === 'approve' ? { count: d.count, roles: d.roles } : { count: 0, roles: [] }
    const expiresAt = d.effect === 'approve' ? at + ctx.proposalTtlMs : at + RECORDED_TTL_MS
    return proposalPayload({ ...draft, windowUsd, rule: d.rule ?? '', needs, expiresAt })
  })
  const after = ctx.chain.report().state
  const p = after.proposals.get(entry.digest)!
  if (p.needs.count > 0) throw proposed(p, after)
  return p
}

/** Signs the change's record under its execution lease (quorum verified), makes it, and records the outcome. */
export async function makeVaultChange<T>(ctx: GateContext, p: Proposal, apply: () => Promise<T>): Promise<T> {
  await signApproved(ctx, p, { body: JSON.stringify({ action: p.action }), nonce: NO_NONCE, refusal: 'nothing was changed' })
  let result: T
  try {
    result = await apply()
  } catch (e) {
    const code = e instanceof DeskError ? e.code : 'Error'
    await recordOutcome(ctx, p.id, { state: 'failed', finalStatus: 'failed', code }).catch(() => undefined)
    throw e
  }
  await recordOutcome(ctx, p.id, { state: 'accepted', finalStatus: 'done', code: null })
  return result
}
