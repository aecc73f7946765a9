import { defineStore } from 'pinia'
import type { ChannelArgs } from '../../../../main/contract/channels'
import type { CliInstallView, NetworkView } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'
import { useSessionStore } from '../session'

/** Settings writes that are not plain preferences: saving a network, changing the vault passphrase. */
export const useSettingsStore = defineStore('settings', () => {
  const saveNetwork = (n: ChannelArgs<'networks.save'>): Promise<NetworkView> => call('networks.save', n)
  async function changePassphrase(current: string, next: string): Promise<void> {
    useSessionStore().setVault(await call('vault.changePassphrase', { current, next }))
  }
  /** Links the packaged `desk` command into the operator's PATH (the desktop app ships the launcher). */
  const installCli = (): Promise<CliInstallView> => call('app.installCli')
  return { saveNetwork, changePassphrase, installCli }
})
