/**
 * Key imports only the desk command line may ask for (cli-only channels): a raw private key, and
 * a keystore whose passphrase main reads from the file the desk names (or its hidden prompt).
 * The desk unlocks the vault first (`vault.unlock`); no key material is ever returned.
 */
import { promises as fs } from 'node:fs'
import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import { readSecret, type VaultHolder } from '../vault'

export type KeyImportChannels = 'accounts.importKey' | 'accounts.importKeystoreFile'

export function keyImportHandlers(d: { vault: VaultHolder }): Pick<HandlerTable, KeyImportChannels> {
  return {
    'accounts.importKey': async ({ key, label }) => {
      const vault = d.vault.requireUnlocked()
      return { address: await vault.importPrivateKey(await readSecret(key, 'private key'), label) }
    },
    'accounts.importKeystoreFile': async ({ file, keystorePassphrase, label }) => {
      let text: string
      try {
        text = await fs.readFile(file, 'utf8')
      } catch (e) {
        throw new DeskError('KeystoreUnreadable', `cannot read the keystore ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`)
      }
      const vault = d.vault.requireUnlocked()
      return { address: await vault.importKeystore(text, await readSecret(keystorePassphrase, 'keystore passphrase'), label) }
    },
  }
}
