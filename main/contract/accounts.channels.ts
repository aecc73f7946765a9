/** The accounts feature's channels (its cli-only key imports are in cli.channels.ts). */

import * as v from 'valibot'
import type { Address } from './common.types'
import type { AccountView } from './accounts.types'
import { intent, query } from './common.channel'
import { address, label, none, passphrase } from './common.schemas'

export const accountsChannels = {
  'accounts.list': query<AccountView[]>()(none),
  'accounts.generate': intent<AccountView>()(v.object({ label })),
  'accounts.watch': intent<AccountView>()(v.object({ address, label })),
  /** Imports a keystore file by path (chosen through the host's file dialog); the file never crosses IPC. */
  'accounts.importKeystore': intent<AccountView>()(
    v.object({ path: v.pipe(v.string(), v.minLength(1), v.maxLength(4096)), passphrase, label }),
  ),
  /**
   * Sandbox only: adds the sandbox scenario's public development owner keys (never real
   * funds) to the vault, so a new user sees every screen working. Main refuses it with
   * `NotSandbox` unless the selected network's kind is 'sandbox'.
   */
  'accounts.importSandboxKeys': intent<AccountView[]>()(none),
  'accounts.update': intent<AccountView>()(v.object({ address, label: v.optional(label), group: v.optional(label) })),
  'accounts.remove': intent<{ removed: Address }>()(v.object({ address })),
} as const
