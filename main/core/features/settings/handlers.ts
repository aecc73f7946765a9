import type { AppState, SettingsView } from '../../../contract/types'
import { networkView } from '../../config/networks'
import type { SettingsStore } from '../../config/settings'
import type { HandlerTable } from '../../ipc/dispatch'
import type { PolicyBook } from '../../policy'
import type { SessionHolder } from '../../session'
import type { AccountDirectory } from '../accounts'
import type { VaultHolder } from '../vault'
import { recordSelect, saveNetwork, type NetworkChangeDeps } from './network-changes'
import { networkChangeHandlers, type NetworkChangeChannels, withName } from './network-change.handlers'

export type SettingsChannels =
  'app.state' | 'networks.list' | 'networks.select' | 'networks.save' | 'settings.get' | 'settings.update' | NetworkChangeChannels

export interface SettingsDeps {
  settings: SettingsStore
  sessions: SessionHolder
  vault: VaultHolder
  accounts: AccountDirectory
  /** Network changes are policy events (passphrase, journal); see network-changes.ts. */
  policy: PolicyBook
  host: 'electron' | 'web' | 'cli'
  version: string
}

function settingsView(settings: SettingsStore): SettingsView {
  const s = settings.load()
  return {
    autoLockMinutes: s.autoLockMinutes,
    passphraseWindowMinutes: s.passphraseWindowMinutes,
    warningThresholds: s.warningThresholds,
    theme: s.theme,
  }
}

/** The selected network is one setting every host reads; selecting another reopens the session. */
export function settingsHandlers(d: SettingsDeps): Pick<HandlerTable, SettingsChannels> {
  const switchSession = async () => {
    d.accounts.forget()
    await d.sessions.reset()
  }
  const nets: NetworkChangeDeps = { settings: d.settings, policy: d.policy, hasVault: () => d.vault.current !== null }
  return {
    'app.state': (): AppState => ({
      version: d.version,
      host: d.host === 'electron' ? 'electron' : 'web',
      network: networkView(d.settings.selected()),
      vault: d.vault.status(),
    }),
    'networks.list': () => ({ selected: d.settings.load().selectedNetwork, networks: d.settings.networks().map(withName) }),
    'networks.select': async ({ name }) => {
      const n = d.settings.network(name)
      const from = d.settings.load().selectedNetwork
      // Selected first, then the session replaced: a read that asks for the session while the old one
      // closes (a stream push, an alert pass) must open the new network, never the old one again.
      d.settings.select(n.name)
      await switchSession()
      recordSelect(nets, from, n)
      return networkView(n)
    },
    'networks.save': async ({ passphrase, ...a }) => {
      const n = await saveNetwork(nets, { ...a, network: a.kind === 'custom' ? a.name : a.kind }, passphrase)
      if (d.settings.load().selectedNetwork === n.name) await switchSession()
      return networkView(n)
    },
    ...networkChangeHandlers(nets, switchSession),
    'settings.get': () => settingsView(d.settings),
    'settings.update': (patch) => {
      d.settings.update(patch)
      d.vault.applySettings()
      return settingsView(d.settings)
    },
  }
}
