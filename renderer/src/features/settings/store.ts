import { defineStore } from 'pinia'
import type { ChannelArgs } from '../../../../main/contract/channels'
import type { AlertSettingsView, CliInstallView, NetworkListing, NetworkView } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'
import { useSessionStore } from '../session'

/** Settings writes that are not plain preferences: saving a network, changing the vault passphrase. */
export const useSettingsStore = defineStore('settings', () => {
  const saveNetwork = (n: ChannelArgs<'networks.save'>): Promise<NetworkView> => call('networks.save', n)
  /** Strict limits on or off: main lets only the sandbox turn them off (InvalidNetwork otherwise). */
  const setStrictLimits = (name: string, on: boolean, passphrase?: string): Promise<NetworkListing> =>
    call('networks.update', { name, strictLimits: on, ...(passphrase ? { passphrase } : {}) })
  async function changePassphrase(current: string, next: string): Promise<void> {
    useSessionStore().setVault(await call('vault.changePassphrase', { current, next }))
  }
  /** Links the packaged `desk` command into the operator's PATH (the desktop app ships the launcher). */
  const installCli = (): Promise<CliInstallView> => call('app.installCli')
  /** Alert rules, LTV thresholds, quiet hours, desktop notifications: main keeps and checks them. */
  const alertSettings = (): Promise<AlertSettingsView> => call('alerts.settings.get')
  const saveAlertSettings = (patch: ChannelArgs<'alerts.settings.update'>): Promise<AlertSettingsView> =>
    call('alerts.settings.update', patch)
  return { saveNetwork, setStrictLimits, changePassphrase, installCli, alertSettings, saveAlertSettings }
})
