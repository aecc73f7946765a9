import type { Address, AgentSlotView } from '../../../contract/types'
import type { EventHub } from '../../ipc/events'
import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import type { PolicyBook } from '../../policy'
import type { WritePipeline } from '../../writes'
import { unlockedWriteSide, type SessionSource, type WriteAccess } from '../../session'
import type { AgentKeyDirectory } from './agents-read.service'
import type { AgentsLive } from './agents-live'
import { agentsFor } from './agents-for-session'
import { approveAgent, revokeAgent, rotateAgent } from './agents-write.service'
import { newCloid } from '../../exchange/trade/cloid'

export type AgentsChannels = 'agents.list' | 'agents.approve' | 'agents.revoke' | 'agents.rotate'

export interface AgentsDeps extends WriteAccess {
  sessions: SessionSource
  keys: AgentKeyDirectory
  /** Approve and rotate are refused while writes are halted (writes/guardrails.ts); revoking only removes access, so it stays open. */
  policy: PolicyBook
  pipeline: WritePipeline
  /** Slots read for the screen are pushed too (`state.agents`). */
  events?: EventHub
  now?: () => number
  /** The agents' live follow-up: an owner whose slots were shown is read again after a reconnect. */
  live?: AgentsLive
}

export function agentsHandlers(d: AgentsDeps): Pick<HandlerTable, AgentsChannels> {
  const slots = async (owner: string): Promise<AgentSlotView[]> => {
    const views = await agentsFor(await d.sessions.current(), d.keys).slots(owner, 'operator')
    d.events?.emit('state.agents', { owner: owner.toLowerCase() as Address, slots: views, fetchedAt: (d.now ?? Date.now)() })
    d.live?.shown(owner)
    return views
  }
  const slot = async (owner: string, n: number) => {
    const s = (await slots(owner)).find((x) => x.slot === n)
    if (!s) throw new DeskError('InvalidAgentSlot', `slot ${n} not found`)
    return s
  }
  return {
    'agents.list': ({ owner }) => slots(owner),
    // An approval or revocation is known to the decision step by a key (given when a team proposal is run again).
    'agents.approve': async ({ owner, slot: n, cloid }) => {
      // The halt first, as the pipeline checks it for the write: before the vault (a locked, halted desk says halted).
      await d.pipeline.refuseIfHalted('agent_approve')
      await approveAgent((await unlockedWriteSide(d)).ctx, d.pipeline.run, { owner, slot: n, matchKey: cloid ?? newCloid() })
      return slot(owner, n)
    },
    'agents.revoke': async ({ owner, slot: n, cloid }) => {
      await revokeAgent((await unlockedWriteSide(d)).ctx, d.pipeline.run, { owner, slot: n, matchKey: cloid ?? newCloid() })
      return slot(owner, n)
    },
    'agents.rotate': async ({ owner, slot: n }) => {
      // The halt first: a rotation unlocks, reads the slots and checks the owner key before its first write.
      await d.pipeline.refuseIfHalted('agent_rotate')
      const r = await rotateAgent((await unlockedWriteSide(d)).ctx, d.pipeline.run, { owner, slot: n })
      const steps = [
        { step: 'generate' as const, status: 'done' as const, detail: `new key ${r.to.agent} generated in the vault` },
        { step: 'approve' as const, status: 'done' as const, detail: `approved into slot ${r.to.slot} (${r.to.outcome.state})` },
        { step: 'verify-epoch' as const, status: 'done' as const, detail: `userAgents shows epoch ${r.to.epoch}` },
        { step: 'switch-signer' as const, status: 'done' as const, detail: `trading now signs with slot ${r.to.slot}` },
        r.inPlace
          ? { step: 'retire-old-key' as const, status: 'skipped' as const, detail: 'no free slot: the key was replaced in place' }
          : {
              step: 'retire-old-key' as const,
              status: r.revoke ? ('done' as const) : ('skipped' as const),
              detail: r.revoke ? `slot ${r.from.slot} revoked, old key ${r.from.agent ?? '(none)'} retired` : 'the old slot was empty',
            },
      ]
      return { slot: await slot(owner, r.to.slot), steps }
    },
  }
}
