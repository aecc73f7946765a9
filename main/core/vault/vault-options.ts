import type { TypedDataDefinition, Hex } from 'viem'
import { join } from 'node:path'
import type { AtomicWriteHooks } from './atomic-write'
import type { ScryptParams } from './kdf'
import type { KeystoreExportKdf } from './keystore-v3'
import type { PassphrasePolicy } from './passphrase-policy'
import type { Confirmer } from './signing-policy'
import { VAULT_FILE_NAME } from './vault-file'

export const DEFAULT_AUTO_LOCK_MS = 15 * 60_000

export interface VaultOptions {
  /** The vault file; use `vaultPath(dataDir)` for the shared location. */
  path: string
  /** Idle time before auto-lock; `null` disables it. Default 15 minutes. */
  autoLockMs?: number | null
  /** Passphrase re-entry window for owner-key actions. Default 5 minutes. */
  reentryWindowMs?: number
  passphrasePolicy?: PassphrasePolicy
  confirmer?: Confirmer
  now?: () => number
  /** Test hook into the atomic write (crash simulation). */
  writeHooks?: AtomicWriteHooks
}

export interface CreateVaultOptions extends VaultOptions {
  passphrase: string
  /** scrypt cost recorded in the file; default N=2^18, r=8, p=1. Tests pass lower values. */
  scrypt?: ScryptParams
}

export interface ExportKeystoreOptions {
  /** The vault passphrase, always re-entered to export a key. */
  vaultPassphrase: string
  /** The keystore's own passphrase, chosen by the operator (policy-checked). */
  keystorePassphrase: string
  kdf?: KeystoreExportKdf
}

export function vaultPath(dataDir: string): string {
  return join(dataDir, VAULT_FILE_NAME)
}

/** How owner keys held by the team sign (installed by team mode; the vault never holds them). */
export interface VaultCustody {
  holds(address: string): boolean
  sign(address: string, typedData: TypedDataDefinition, digest: Hex): Promise<Hex>
}
