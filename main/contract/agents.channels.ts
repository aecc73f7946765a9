/** The agents feature's channels (the emergency `agents.revokeAll` sits with halt, in policy.channels.ts). */

import * as v from 'valibot'
import type { AgentSlotView, RotationStep } from './agents.types'
import { intent, query } from './common.channel'
import { address, cloid, slot } from './common.schemas'

const ownerSlot = v.object({ owner: address, slot })
/** `cloid` on an agent approval or revocation: the key an approved team proposal knows it by (replayed); generated when absent. */
const ownerSlotWrite = v.object({ owner: address, slot, cloid: v.optional(cloid) })

export const agentsChannels = {
  'agents.list': query<AgentSlotView[]>()(v.object({ owner: address })),
  'agents.approve': intent<AgentSlotView>()(ownerSlotWrite),
  'agents.revoke': intent<AgentSlotView>()(ownerSlotWrite),
  'agents.rotate': intent<{ slot: AgentSlotView; steps: RotationStep[] }>()(ownerSlot),
} as const
