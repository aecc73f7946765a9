/** The agents feature's views: an owner's API (agent) key slots and a rotation's steps. */

import type { Address } from './common.types'

export interface AgentSlotView {
  slot: 0 | 1 | 2 | 3
  agent: Address | null
  epoch: string | null
  keyInVault: boolean
  approvedAt: number | null
}

export interface RotationStep {
  step: 'generate' | 'approve' | 'verify-epoch' | 'switch-signer' | 'retire-old-key'
  status: 'done' | 'failed' | 'skipped'
  detail: string
}

/** One owner's agent slots, pushed when they change (`state.agents`). */
export interface AgentSlotsView {
  owner: Address
  slots: AgentSlotView[]
  /** when the slots were read (ms) */
  fetchedAt: number
}
