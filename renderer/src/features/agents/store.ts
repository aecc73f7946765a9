import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { AgentSlotView, AgentSlotsView, Address, RotationStep } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

type Slot = 0 | 1 | 2 | 3

/** The agent slots of an owner and the writes on them (each approval is confirmed in main). */
export const useAgentsStore = defineStore('agents', () => {
  const list = (owner: Address): Promise<AgentSlotView[]> => call('agents.list', { owner })
  const approve = (owner: Address, slot: Slot): Promise<AgentSlotView> => call('agents.approve', { owner, slot })
  const revoke = (owner: Address, slot: Slot): Promise<AgentSlotView> => call('agents.revoke', { owner, slot })
  /** Gap-free rotation: new agent in a spare slot, verified, then the old slot revoked. */
  const rotate = (owner: Address, slot: Slot): Promise<{ slot: AgentSlotView; steps: RotationStep[] }> =>
    call('agents.rotate', { owner, slot })
  /** The latest slots main pushed per owner (`state.agents`: after agent writes and reconnects). */
  const pushed = ref<Record<string, AgentSlotsView>>({})
  const apply = (v: AgentSlotsView): void => {
    const prev = pushed.value[v.owner.toLowerCase()]
    if (prev && prev.fetchedAt > v.fetchedAt) return
    pushed.value = { ...pushed.value, [v.owner.toLowerCase()]: v }
  }
  return { list, approve, revoke, rotate, pushed, apply }
})
