/** What the desk's channels need from the core, and the two checks every one of them shares. */
import type { CliSecret } from '../../../contract/types'
import { requireConfigured } from '../../config/networks'
import type { SettingsStore } from '../../config/settings'
import { DeskError } from '../../errors/desk-error'
import type { Journal } from '../../journal'
import type { NetworkSession, SessionHolder } from '../../session'
import { vaultPath, type Vault } from '../../vault'
import type { AccountDirectory } from '../accounts'
import type { VaultHolder } from '../vault'
import { readSecret } from '../vault'

export interface CliDeps {
  dataDir: string
  settings: SettingsStore
  sessions: SessionHolder
  vault: VaultHolder
  journal: Journal
  accounts: AccountDirectory
}

/**
 * The selected network's session (the core holds one network; the app and every desk client
 * share it). `--network` naming another network is refused rather than opening a second one.
 */
export async function sessionFor(d: CliDeps, network: string | undefined): Promise<NetworkSession> {
  if (network !== undefined && network !== d.settings.selected().name) {
    const n = requireConfigured(d.settings.network(network))
    throw new DeskError('NetworkNotSelected', `"${n.name}" is not the selected network (${d.settings.selected().name}); select it first with \`desk networks select ${n.name}\``, { network: n.name })
  }
  return d.sessions.current()
}

/** The data directory's vault, or `VaultNotFound` as the desk has always said. */
export function requireVault(d: CliDeps): Vault {
  const v = d.vault.current
  if (!v) throw new DeskError('VaultNotFound', `no vault at ${vaultPath(d.dataDir)}; create one with \`desk keys init\``, { path: vaultPath(d.dataDir) })
  return v
}

/**
 * The vault, unlocked: the core's unlock state when it is unlocked already (the app's, when
 * attached), else unlocked with the passphrase the desk named.
 */
export async function unlockedVault(d: CliDeps, unlock: CliSecret | undefined): Promise<Vault> {
  const v = requireVault(d)
  if (v.isUnlocked) return v
  if (!unlock) throw new DeskError('VaultLocked', 'the vault is locked; unlock it in the app, or pass --passphrase-file')
  await d.vault.unlock(await readSecret(unlock, 'vault passphrase'))
  return v
}
