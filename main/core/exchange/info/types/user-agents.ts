import * as v from 'valibot'
import { defineInfo } from '../define'
import { address, uint, userParams } from '../fields'

export const AgentSlotSchema = v.looseObject({
  slot_id: v.picklist([0, 1, 2, 3]),
  agent: v.nullable(address),
  epoch: v.nullish(uint),
})
export type AgentSlot = v.InferOutput<typeof AgentSlotSchema>

/** `userAgents`: the owner's agent slots; `agent` null for an empty slot. */
export const userAgents = defineInfo({
  type: 'userAgents',
  request: userParams,
  response: v.looseObject({ agents: v.array(AgentSlotSchema) }),
})
