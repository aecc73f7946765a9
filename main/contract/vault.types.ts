/** The vault feature's views: its status, its keys (addresses only) and a vault `desk keys init` created. */

import type { Address } from './common.types'

export interface VaultStatus {
  exists: boolean
  unlocked: boolean
  /** ms since epoch when the passphrase was last entered, null when locked. */
  lastPassphraseAt: number | null
  autoLockMinutes: number
}

/** The vault's accounts and key addresses (never key material), as `desk keys list` prints them. */
export interface VaultKeysView {
  path: string
  accounts: {
    address: Address
    label: string
    watchOnly: boolean
    createdAt: string
    agents: { slot: 0 | 1 | 2 | 3; address: Address; createdAt: string }[]
  }[]
  retiredAgents: { owner: Address; slot: 0 | 1 | 2 | 3; address: Address; retiredAt: string }[]
}

/** A vault created by `desk keys init`: where, and the scrypt cost of its key derivation. */
export interface VaultInitView {
  path: string
  kdf: { name: 'scrypt'; n: number; r: number; p: number }
}
