import type { Address } from 'viem'
import { DeskError } from '../../errors/desk-error'
import type { AgentSlot } from '../../vault/types'
import { isAgentSlot } from '../../vault/types'
import { PREFERRED_SLOT_KIND, type AgentKeyStore } from '../../session/trading-signer'
import type { SubmitRequest } from '../../exchange/trade/submitter'
import { checkAddress, requireOwnerKey, short, type WriteContext, type WriteOutcome } from '../../session/write-context'
import { requireSubmitted, type RunWrite, type WriteSpec } from '../../writes'

/**
 * The write side of agent (API wallet) management: approve a slot with a key generated in the
 * vault, revoke, and rotate without a trading gap.
 */
export type AgentsContext = WriteContext & { keys: AgentKeyStore; sleep?: (ms: number) => Promise<void> }

export interface ApprovedAgent {
  owner: string
  slot: AgentSlot
  agent: string
  epoch: string
  outcome: WriteOutcome
}

function slotOf(slot: number): AgentSlot {
  if (!isAgentSlot(slot)) throw new DeskError('InvalidAgentSlot', 'agent slot must be 0, 1, 2 or 3')
  return slot
}

/** Reads userAgents until the slot shows `agent` (the approval is visible), returning its epoch. */
async function waitForSlot(
  ctx: AgentsContext,
  owner: string,
  slot: AgentSlot,
  agent: string | null,
  attempts = 10,
): Promise<bigint | null> {
  for (let i = 0; i < attempts; i++) {
    const s = (await ctx.reads.agents(owner)).find((a) => a.slotId === slot)
    const cur = s?.agent?.toLowerCase() ?? null
    if (cur === (agent?.toLowerCase() ?? null)) return s?.epoch ?? null
    await (ctx.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms))))(300)
  }
  throw new DeskError(
    'AgentNotVisible',
    `slot ${slot} of ${owner} does not show ${agent ?? 'an empty slot'} yet; the journal keeps the write, check again shortly`,
    { slot },
  )
}

/** The approval of `agent` into `slot`, signed by the owner key; `kind` is 'agent_rotate' when it is a rotation's. */
function approveWrite(
  owner: Address,
  slot: AgentSlot,
  agent: Address | (() => Promise<Address>),
  kind: 'agent_approve' | 'agent_rotate',
  matchKey?: string,
  /** The approval's own validation, run as the pipeline's validate step (after the halt). */
  check?: () => Promise<void>,
): WriteSpec<{ agent: () => Address }> {
  let chosen: Address | null = typeof agent === 'function' ? null : agent
  const request = (a: Address): SubmitRequest => ({
    account: owner,
    signer: { owner, role: 'owner' },
    action: { type: 'approveAgent', slot_id: slot, agent: a },
    summary: `approve agent ${short(a)} in slot ${slot} of ${short(owner)}`,
    intent: {
      action: 'approveAgent',
      title: `Approve an API key in slot ${slot}`,
      summary: [`owner ${owner}`, `slot ${slot}`, `agent ${a} (new key, generated in the vault)`],
    },
  })
  // A new key is generated only once the decision allowed the write (replaced in place, the vault retires the old one as it does).
  const shown = chosen ?? (('0x' + '0'.repeat(40)) as Address)
  const base = request(shown)
  return {
    kind,
    describe: async () => {
      await check?.()
      return {
        account: owner,
        title: base.intent!.title,
        preview: chosen
          ? base.intent!.summary
          : [`owner ${owner}`, `slot ${slot}`, 'agent: a new key, generated in the vault once the write is allowed'],
        feature: { agent: () => chosen! },
        signing: {
          channel: 'trade',
          request: base,
          ...(matchKey ? { matchKey } : {}),
          ...(typeof agent === 'function'
            ? {
                afterDecision: async () => {
                  chosen = await agent()
                  return request(chosen)
                },
              }
            : {}),
        },
      }
    },
  }
}

/** Generates a key for an empty slot in the vault, approves it with the owner key, and reads back its epoch. */
export async function approveAgent(
  ctx: AgentsContext,
  run: RunWrite,
  req: { owner: string; slot: number; matchKey?: string },
  kind: 'agent_approve' | 'agent_rotate' = 'agent_approve',
): Promise<ApprovedAgent> {
  const owner = checkAddress(req.owner, 'owner') as Address
  const slot = slotOf(req.slot)
  // Checked in the pipeline's validate step, so a halted desk refuses the approval first.
  const check = async () => {
    requireOwnerKey(ctx, owner, 'owner')
    const onChain = (await ctx.reads.agents(owner)).find((a) => a.slotId === slot)
    if (onChain?.agent)
      throw new DeskError('AgentSlotOccupied', `slot ${slot} of ${owner} holds ${onChain.agent}; revoke or rotate it`, { slot })
  }
  // A new key is generated only once the guardrails and the decision allowed the approval (nothing left behind by a refusal).
  const r = requireSubmitted(
    await run(
      approveWrite(
        owner,
        slot,
        ctx.keys.agentAddress(owner, slot) ?? (() => ctx.keys.generateAgentKey(owner, slot)),
        kind,
        req.matchKey,
        check,
      ),
    ),
  )
  const agent = r.feature.agent()
  const epoch = await waitForSlot(ctx, owner, slot, agent)
  return { owner, slot, agent: agent.toLowerCase(), epoch: String(epoch ?? ''), outcome: r.outcome }
}

/** Revokes a slot on the service, waits until it shows empty, then deletes the key from the vault. */
export async function revokeAgent(
  ctx: AgentsContext,
  run: RunWrite,
  req: { owner: string; slot: number; matchKey?: string },
): Promise<{ owner: string; slot: AgentSlot; retired: string | null; outcome: WriteOutcome }> {
  const owner = checkAddress(req.owner, 'owner') as Address
  const slot = slotOf(req.slot)
  const r = requireSubmitted(
    await run({
      kind: 'agent_revoke',
      describe: async () => {
        requireOwnerKey(ctx, owner, 'owner')
        // The exchange would only reject it: an empty slot is refused before anything is signed.
        const current = (await ctx.reads.agents(owner)).find((a) => a.slotId === slot)
        if (!current || current.agent === null)
          throw new DeskError('AgentSlotEmpty', `slot ${slot} of ${short(owner)} holds no API key: there is nothing to revoke`, {
            owner,
            slot,
          })
        const title = `Revoke the API key in slot ${slot}`
        const lines = [`owner ${owner}`, `slot ${slot}: writes signed by its key will fail with UnknownAgent`]
        return {
          account: owner,
          title,
          preview: lines,
          feature: undefined,
          signing: {
            channel: 'trade',
            request: {
              account: owner,
              signer: { owner, role: 'owner' },
              action: { type: 'revokeAgent', slot_id: slot },
              summary: `revoke agent slot ${slot} of ${short(owner)}`,
              intent: { action: 'revokeAgent', title, summary: lines },
            },
            ...(req.matchKey ? { matchKey: req.matchKey } : {}),
          },
        }
      },
    }),
  )
  await waitForSlot(ctx, owner, slot, null)
  const retired = ctx.keys.agentAddress(owner, slot) ? await ctx.keys.retireAgentKey(owner, slot) : null
  if (ctx.journal.getState<{ slot: number }>(ctx.network, owner, PREFERRED_SLOT_KIND)?.value.slot === slot)
    ctx.journal.deleteState(ctx.network, owner, PREFERRED_SLOT_KIND)
  return { owner, slot, retired: retired?.toLowerCase() ?? null, outcome: r.outcome }
}

export interface RotationResult {
  owner: string
  from: { slot: AgentSlot; agent: string | null }
  to: ApprovedAgent
  /** The old slot's revoke, when rotating into another slot. */
  revoke: WriteOutcome | null
  /** True when no free slot existed and the key was replaced in place (a short trading gap). */
  inPlace: boolean
  /** What was done, in order (for the operator's record). */
  steps: RotationStep[]
}

export interface RotationStep {
  step: 'generate' | 'approve' | 'verify-epoch' | 'switch-signer' | 'retire-old-key'
  status: 'done' | 'failed' | 'skipped'
  detail: string
}

/**
 * Rotates the key of `slot`: a new key is generated and approved into a free slot, its epoch
 * verified from userAgents, the trading signer switched to it (so orders never lack a valid
 * signer), and only then the old slot is revoked and its key retired. With no free slot the key
 * is replaced in the same slot (re-approval), which leaves a gap of one approval.
 */
export async function rotateAgent(ctx: AgentsContext, run: RunWrite, req: { owner: string; slot: number }): Promise<RotationResult> {
  const owner = checkAddress(req.owner, 'owner') as Address
  const slot = slotOf(req.slot)
  requireOwnerKey(ctx, owner, 'owner')
  const agents = await ctx.reads.agents(owner)
  const old = agents.find((a) => a.slotId === slot)?.agent ?? null
  const free = ([0, 1, 2, 3] as AgentSlot[]).find(
    (s) => s !== slot && !agents.find((a) => a.slotId === s)?.agent && !ctx.keys.agentAddress(owner, s),
  )
  const steps: RotationStep[] = []
  if (free !== undefined) {
    const to = await approveAgent(ctx, run, { owner, slot: free }, 'agent_rotate')
    steps.push(
      { step: 'generate', status: 'done', detail: `new key ${to.agent} for free slot ${free}` },
      { step: 'approve', status: 'done', detail: `journal #${to.outcome.journalId} ${to.outcome.state}` },
      { step: 'verify-epoch', status: 'done', detail: `userAgents slot ${free}: epoch ${to.epoch}` },
    )
    ctx.journal.putState(ctx.network, owner, PREFERRED_SLOT_KIND, { slot: free, epoch: to.epoch, agent: to.agent })
    steps.push({ step: 'switch-signer', status: 'done', detail: `trading writes of ${owner} now use slot ${free}` })
    let revoke: WriteOutcome | null = null
    if (old) {
      revoke = (await revokeAgent(ctx, run, { owner, slot })).outcome
      steps.push({
        step: 'retire-old-key',
        status: 'done',
        detail: `slot ${slot} revoked (journal #${revoke.journalId}) and its key deleted from the vault`,
      })
    } else if (ctx.keys.agentAddress(owner, slot)) {
      await ctx.keys.retireAgentKey(owner, slot)
      steps.push({
        step: 'retire-old-key',
        status: 'done',
        detail: `slot ${slot} was not approved on the service; its key was deleted from the vault`,
      })
    } else {
      steps.push({ step: 'retire-old-key', status: 'skipped', detail: `slot ${slot} held no key` })
    }
    return { owner, from: { slot, agent: old?.toLowerCase() ?? null }, to, revoke, inPlace: false, steps }
  }
  // In place: the vault swaps the key at once; the old one stays approved on the service until
  // the re-approval executes, so trading pauses for that one write.
  const r = requireSubmitted(
    await run(approveWrite(owner, slot, () => ctx.keys.generateAgentKey(owner, slot, { replace: true }), 'agent_rotate')),
  )
  const agent = r.feature.agent()
  const outcome = r.outcome
  steps.push({ step: 'generate', status: 'done', detail: `new key ${agent.toLowerCase()} replacing slot ${slot} (no free slot)` })
  steps.push({ step: 'retire-old-key', status: 'done', detail: `old key of slot ${slot} retired in the vault` })
  steps.push({ step: 'approve', status: 'done', detail: `journal #${outcome.journalId} ${outcome.state}` })
  const epoch = await waitForSlot(ctx, owner, slot, agent)
  steps.push({ step: 'verify-epoch', status: 'done', detail: `userAgents slot ${slot}: epoch ${String(epoch)}` })
  ctx.journal.putState(ctx.network, owner, PREFERRED_SLOT_KIND, { slot, epoch: String(epoch ?? ''), agent: agent.toLowerCase() })
  steps.push({ step: 'switch-signer', status: 'done', detail: `trading writes of ${owner} use slot ${slot} again` })
  return {
    owner,
    from: { slot, agent: old?.toLowerCase() ?? null },
    to: { owner, slot, agent: agent.toLowerCase(), epoch: String(epoch ?? ''), outcome },
    revoke: null,
    inPlace: true,
    steps,
  }
}
