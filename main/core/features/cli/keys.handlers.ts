/**
 * The desk's key custody over the core's vault: create, list, import (raw key, keystore),
 * export a keystore, generate, watch, remove, change passphrase. Key files and passphrases are
 * read here from the files the desk names; no key material is ever returned.
 */
import { promises as fs } from 'node:fs'
import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import { DEFAULT_SCRYPT, Vault, vaultPath, type KeystoreExportKdf } from '../../vault'
import { requireVault, unlockedVault, type CliDeps } from './cli-deps'
import { readSecret } from './secrets'

export type CliKeysChannels =
  | 'cli.keys.init'
  | 'cli.keys.list'
  | 'cli.keys.importKey'
  | 'cli.keys.importKeystore'
  | 'cli.keys.exportKeystore'
  | 'cli.keys.remove'

export function cliKeysHandlers(d: CliDeps): Pick<HandlerTable, CliKeysChannels> {
  return {
    'cli.keys.init': async ({ passphrase, scryptN }) => {
      const path = vaultPath(d.dataDir)
      if (d.vault.current || (await Vault.exists(path))) throw new DeskError('VaultExists', `a vault already exists at ${path}`)
      const scrypt = { ...DEFAULT_SCRYPT, ...(scryptN !== undefined ? { n: scryptN } : {}) }
      const created = await Vault.create({ path, passphrase: await readSecret(passphrase, 'vault passphrase'), scrypt, autoLockMs: null })
      created.lock()
      // The core adopts the new vault (locked), as it does one found at start.
      await d.vault.open()
      return { path, kdf: { name: 'scrypt', ...scrypt } }
    },
    'cli.keys.list': () => {
      const vault = requireVault(d)
      return { path: vaultPath(d.dataDir), accounts: vault.listAccounts(), retiredAgents: vault.retiredAgents() }
    },
    'cli.keys.importKey': async ({ unlock, key, label }) => {
      const vault = await unlockedVault(d, unlock)
      return { address: await vault.importPrivateKey(await readSecret(key, 'private key'), label) }
    },
    'cli.keys.importKeystore': async ({ unlock, file, keystorePassphrase, label }) => {
      let text: string
      try {
        text = await fs.readFile(file, 'utf8')
      } catch (e) {
        throw new DeskError('KeystoreUnreadable', `cannot read the keystore ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`)
      }
      const vault = await unlockedVault(d, unlock)
      return { address: await vault.importKeystore(text, await readSecret(keystorePassphrase, 'keystore passphrase'), label) }
    },
    'cli.keys.exportKeystore': async (a) => {
      if (!a.force && (await fs.stat(a.file).then(() => true, () => false))) throw new DeskError('FileExists', `${a.file} exists; pass --force to overwrite`)
      const vaultPassphrase = await readSecret(a.vaultPassphrase, 'vault passphrase')
      const vault = await unlockedVault(d, { value: vaultPassphrase })
      const kdf: KeystoreExportKdf = a.kdf.kdf === 'scrypt' ? { kdf: 'scrypt', scrypt: { ...DEFAULT_SCRYPT, n: a.kdf.n } } : { kdf: 'pbkdf2' }
      const keystorePassphrase = await readSecret(a.keystorePassphrase, 'keystore passphrase')
      const keystore = await vault.exportKeystore(a.address, { vaultPassphrase, keystorePassphrase, kdf })
      await fs.writeFile(a.file, JSON.stringify(keystore, null, 2) + '\n', { mode: 0o600, flag: a.force ? 'w' : 'wx' })
      return { address: a.address, file: a.file }
    },
    'cli.keys.remove': async ({ unlock, address }) => {
      const account = requireVault(d).listAccounts().find((a) => a.address === address)
      if (!account) throw new DeskError('AccountNotInVault', `${address} is not an account in the vault`)
      await (await unlockedVault(d, unlock)).removeAccount(address)
      return { address, removed: true }
    },
  }
}
