/**
 * The desk command line's channels (cli-only). Arguments are the operator's words as typed (main
 * parses them with the same typed errors the app's services raise); results are what
 * `desk … --json` prints.
 */

import * as v from 'valibot'
import type { Address } from './common.types'
import type { VaultInitView } from './vault.types'
import { cliOnly } from './common.channel'
import { address, filePath, label, passphrase } from './common.schemas'

/** A secret main reads from a file the CLI names, or the value typed at the CLI's hidden prompt. */
const secret = v.union([v.object({ file: filePath }), v.object({ value: passphrase })])
const label64 = v.optional(label)

export const cliChannels = {
  /** Reconcile passes (1 s apart) over the selected network's unresolved entries; lists what is still unresolved (journal feature). */
  'journal.reconcile': cliOnly<{ unresolved: { id: number; actionType: string; state: string; key: string }[] }>()(
    'intent',
    v.object({ passes: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)) }),
  ),
  /** Creates the vault (locked) with the scrypt cost the desk chose (vault feature); the passphrase is read by main. */
  'vault.init': cliOnly<VaultInitView>()(
    'intent',
    v.object({ passphrase: secret, scryptN: v.optional(v.pipe(v.number(), v.integer(), v.minValue(2 ** 14), v.maxValue(2 ** 22))) }),
  ),
  /**
   * Raw private key import into the unlocked vault (accounts feature): the key is read by main from the
   * named file (or the hidden prompt), never an argument.
   */
  'accounts.importKey': cliOnly<{ address: Address }>()('intent', v.object({ key: secret, label: label64 })),
  /** Keystore import into the unlocked vault (accounts feature), its passphrase read by main from the named file (or the hidden prompt). */
  'accounts.importKeystoreFile': cliOnly<{ address: Address }>()(
    'intent',
    v.object({ file: filePath, keystorePassphrase: secret, label: label64 }),
  ),
  /** Keystore export (vault feature): main writes the v3 file (0600) itself; no key material crosses the channel. */
  'vault.exportKeystore': cliOnly<{ address: string; file: string }>()(
    'intent',
    v.object({
      address,
      file: filePath,
      force: v.boolean(),
      vaultPassphrase: secret,
      keystorePassphrase: secret,
      kdf: v.union([
        v.object({ kdf: v.literal('scrypt'), n: v.pipe(v.number(), v.integer(), v.minValue(2 ** 14), v.maxValue(2 ** 22)) }),
        v.object({ kdf: v.literal('pbkdf2') }),
      ]),
    }),
  ),
} as const
