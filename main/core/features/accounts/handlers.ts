import { readFile, stat } from 'node:fs/promises'
import type { Address } from '../../../contract/types'
import type { SettingsStore } from '../../config/settings'
import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import type { VaultHolder } from '../vault'
import type { AccountDirectory } from './account-directory'

/** Keystore files are small JSON documents; anything larger is the wrong file. */
const MAX_KEYSTORE_BYTES = 64 * 1024

/** Public development accounts a host may offer on the sandbox (the sandbox owns the list; hosts hand it in). */
export interface DemoAccount {
  address: string
  privateKey: `0x${string}`
  label: string
}

export type AccountsChannels =
  | 'accounts.list'
  | 'accounts.generate'
  | 'accounts.watch'
  | 'accounts.importKeystore'
  | 'accounts.importSandboxKeys'
  | 'accounts.update'
  | 'accounts.remove'

export interface AccountsDeps {
  vault: VaultHolder
  accounts: AccountDirectory
  settings: SettingsStore
  demoAccounts: readonly DemoAccount[]
}

export function accountsHandlers(d: AccountsDeps): Pick<HandlerTable, AccountsChannels> {
  const viewOf = (address: string) => {
    const a = d.accounts.viewOf(address)
    if (!a) throw new DeskError('UnknownAccount', `${address} is not in the vault`)
    return a
  }
  return {
    'accounts.list': () => d.accounts.views(),
    'accounts.generate': async ({ label }) => {
      const vault = d.vault.requireUnlocked()
      // The address exists only once generated: the record names the desk, the outcome the new key.
      const change = { kind: 'key_add' as const, account: null, title: 'Generate a new owner key' }
      return viewOf(await d.vault.custody.run(change, () => vault.generateOwnerKey(label || undefined)))
    },
    'accounts.watch': async ({ address, label }) => viewOf(await d.vault.requireUnlocked().addWatchOnly(address, label || undefined)),
    'accounts.importKeystore': async ({ path, passphrase, label }) => {
      const vault = d.vault.requireUnlocked()
      let text: string
      try {
        const st = await stat(path)
        if (!st.isFile() || st.size > MAX_KEYSTORE_BYTES)
          throw new DeskError('KeystoreFileInvalid', 'That file is not a keystore (not a small regular file).')
        text = await readFile(path, 'utf8')
      } catch (e) {
        if (e instanceof DeskError) throw e
        throw new DeskError('KeystoreFileUnreadable', `Cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`)
      }
      const change = { kind: 'key_add' as const, account: null, title: 'Import an owner key from a keystore file' }
      return viewOf(await d.vault.custody.run(change, () => vault.importKeystore(text, passphrase, label || undefined)))
    },
    'accounts.importSandboxKeys': async () => {
      if (d.settings.selected().kind !== 'sandbox')
        throw new DeskError('NotSandbox', 'Development keys can only be added on the sandbox network.')
      if (d.demoAccounts.length === 0) throw new DeskError('NoDemoAccounts', 'This host offers no sandbox demo accounts.')
      const vault = d.vault.requireUnlocked()
      const have = new Set(vault.listAccounts().map((a) => a.address.toLowerCase()))
      for (const o of d.demoAccounts) {
        const account = o.address.toLowerCase()
        if (!have.has(account))
          await d.vault.custody.run({ kind: 'key_add', account, title: `Add the sandbox demo key ${o.label} (${account})` }, () =>
            vault.importPrivateKey(o.privateKey, o.label),
          )
      }
      const demo = new Set(d.demoAccounts.map((o) => o.address.toLowerCase()))
      return d.accounts.views().filter((a) => demo.has(a.address))
    },
    'accounts.update': async ({ address, label, group }) => {
      if (label !== undefined) await d.vault.requireUnlocked().setLabel(address, label)
      if (group !== undefined) d.accounts.meta.setGroup(address, group)
      return viewOf(address)
    },
    'accounts.remove': async ({ address }) => {
      const vault = d.vault.requireUnlocked()
      const account = address.toLowerCase()
      const keyed = vault.listAccounts().some((x) => x.address.toLowerCase() === account && !x.watchOnly)
      if (keyed)
        await d.vault.custody.run({ kind: 'key_remove', account, title: `Remove the owner key of ${account}` }, () =>
          vault.removeAccount(address),
        )
      else await vault.removeAccount(address)
      return { removed: address.toLowerCase() as Address }
    },
  }
}
