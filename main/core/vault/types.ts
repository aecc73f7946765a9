import type { Address } from 'viem'

/** Each owner has 4 agent (API wallet) slots, numbered 0 to 3. */
export type AgentSlot = 0 | 1 | 2 | 3
export const AGENT_SLOTS: readonly AgentSlot[] = [0, 1, 2, 3]

export function isAgentSlot(value: unknown): value is AgentSlot {
  return value === 0 || value === 1 || value === 2 || value === 3
}

/** Names a signing key without ever holding it: an owner's main key, or one of its agent keys. */
export type SignerRef = { owner: Address; role: 'owner' } | { owner: Address; role: 'agent'; slot: AgentSlot }

export interface AgentKeyInfo {
  slot: AgentSlot
  address: Address
  createdAt: string
}

export interface RetiredAgentInfo {
  owner: Address
  slot: AgentSlot
  address: Address
  retiredAt: string
}

/** What anyone may see about an account: never key material. */
export interface OwnerAccountInfo {
  address: Address
  label: string
  /** No owner key in the vault: balances and positions visible, nothing signable by the owner. */
  watchOnly: boolean
  /** The owner key is held by the team's shares (no key here; it signs only what the team approved). */
  teamHeld?: boolean
  createdAt: string
  agents: AgentKeyInfo[]
}

export type VaultEvent = { type: 'unlocked' } | { type: 'locked'; reason: LockReason } | { type: 'accountsChanged' }

export type LockReason = 'manual' | 'idle' | 'os' | 'passphraseChanged'
