/**
 * Key custody the desk command line reaches: the vault's key addresses (any host), and the
 * cli-only creation of the vault and export of one key as a keystore. Passphrases named by the
 * desk are read here (a file main reads, or the hidden prompt's value); the exported keystore
 * is written by main and never returned.
 */
import { promises as fs } from 'node:fs'
import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import { DEFAULT_SCRYPT, Vault, vaultPath, type KeystoreExportKdf } from '../../vault'
import { readSecret } from './secret-ref'
import type { VaultHolder } from './vault-holder'

export type VaultKeysChannels = 'vault.keys' | 'vault.init' | 'vault.exportKeystore'

export function vaultKeysHandlers(d: { dataDir: string; vault: VaultHolder }): Pick<HandlerTable, VaultKeysChannels> {
  const path = vaultPath(d.dataDir)
  const requireVault = () => {
    const v = d.vault.current
    if (!v) throw new DeskError('VaultNotFound', `no vault at ${path}; create one with \`desk keys init\``, { path })
    return v
  }
  return {
    'vault.keys': () => {
      const vault = requireVault()
      return { path, accounts: vault.listAccounts(), retiredAgents: vault.retiredAgents() }
    },
    'vault.init': async ({ passphrase, scryptN }) => {
      if (d.vault.current || (await Vault.exists(path))) throw new DeskError('VaultExists', `a vault already exists at ${path}`)
      const scrypt = { ...DEFAULT_SCRYPT, ...(scryptN !== undefined ? { n: scryptN } : {}) }
      const created = await Vault.create({ path, passphrase: await readSecret(passphrase, 'vault passphrase'), scrypt, autoLockMs: null })
      created.lock()
      // The core adopts the new vault (locked), as it does one found at start.
      await d.vault.open()
      return { path, kdf: { name: 'scrypt' as const, ...scrypt } }
    },
    'vault.exportKeystore': async (a) => {
      if (
        !a.force &&
        (await fs.stat(a.file).then(
          () => true,
          () => false,
        ))
      )
        throw new DeskError('FileExists', `${a.file} exists; pass --force to overwrite`)
      const vaultPassphrase = await readSecret(a.vaultPassphrase, 'vault passphrase')
      // The export re-checks the vault passphrase; a locked vault is unlocked with it first.
      const vault = requireVault()
      if (!vault.isUnlocked) await d.vault.unlock(vaultPassphrase)
      const kdf: KeystoreExportKdf =
        a.kdf.kdf === 'scrypt' ? { kdf: 'scrypt', scrypt: { ...DEFAULT_SCRYPT, n: a.kdf.n } } : { kdf: 'pbkdf2' }
      const keystorePassphrase = await readSecret(a.keystorePassphrase, 'keystore passphrase')
      if (!(await vault.verifyPassphrase(vaultPassphrase)))
        throw new DeskError('PassphraseIncorrect', 'wrong vault passphrase; nothing exported')
      const account = a.address.toLowerCase()
      await d.vault.custody.run({ kind: 'key_export', account, title: `Export the owner key of ${account} as a keystore` }, async () => {
        const keystore = await vault.exportKeystore(a.address, { vaultPassphrase, keystorePassphrase, kdf })
        await fs.writeFile(a.file, JSON.stringify(keystore, null, 2) + '\n', { mode: 0o600, flag: a.force ? 'w' : 'wx' })
      })
      return { address: a.address, file: a.file }
    },
  }
}
