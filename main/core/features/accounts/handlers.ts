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
    'accounts.generate': async ({ label }) => viewOf(await d.vault.requireUnlocked().generateOwnerKey(label || undefined)),
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
      return viewOf(await vault.importKeystore(text, passphrase, label || undefined))
    },
    'accounts.importSandboxKeys': async () => {
      if (d.settings.selected().kind !== 'sandbox')
        throw new DeskError('NotSandbox', 'Development keys can only be added on the sandbox network.')
      if (d.demoAccounts.length === 0) throw new DeskError('NoDemoAccounts', 'This host offers no sandbox demo accounts.')
      const vault = d.vault.requireUnlocked()
      const have = new Set(vault.listAccounts().map((a) => a.address.toLowerCase()))
      for (const o of d.demoAccounts) {
        if (!have.has(o.address.toLowerCase())) await vault.importPrivateKey(o.privateKey, o.label)
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
      await d.vault.requireUnlocked().removeAccount(address)
      return { removed: address.toLowerCase() as Address }
    },
  }
}
