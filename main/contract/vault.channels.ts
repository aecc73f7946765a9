/** The vault feature's channels (its cli-only ones are in cli.channels.ts). */

import * as v from 'valibot'
import type { VaultKeysView, VaultStatus } from './vault.types'
import { intent, query } from './common.channel'
import { none, passphrase } from './common.schemas'

export const vaultChannels = {
  'vault.create': intent<VaultStatus>()(v.object({ passphrase })),
  'vault.unlock': intent<VaultStatus>()(v.object({ passphrase })),
  'vault.lock': intent<VaultStatus>()(none),
  'vault.changePassphrase': intent<VaultStatus>()(v.object({ current: passphrase, next: passphrase })),
  /** The vault's file, accounts, agent key addresses and retired agents (addresses only, no passphrase needed). */
  'vault.keys': query<VaultKeysView>()(none),
} as const
