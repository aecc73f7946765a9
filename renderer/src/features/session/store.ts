import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { AppState, NetworkView, SettingsView, StreamStatus, VaultStatus } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'
import { earlyOr } from '../../platform/bridge/early'

/** App-wide session: host state, vault lock, network, settings, stream health. */
export const useSessionStore = defineStore('session', () => {
  const appState = ref<AppState | null>(null)
  const loadError = ref<unknown>(null)
  const settings = ref<SettingsView | null>(null)
  const networks = ref<NetworkView[]>([])
  const stream = ref<StreamStatus | null>(null)
  const hostDisconnected = ref(false)

  const vault = computed<VaultStatus | null>(() => appState.value?.vault ?? null)
  const unlocked = computed(() => appState.value?.vault.unlocked === true)
  const network = computed(() => appState.value?.network ?? null)
  const isMainnet = computed(() => appState.value?.network.kind === 'mainnet')
  const theme = computed(() => settings.value?.theme ?? 'dark')

  async function load(): Promise<void> {
    try {
      // The page's boot script asked already (platform/bridge/early.ts); a later load asks again.
      appState.value = await earlyOr('app.state', () => call('app.state'))
      loadError.value = null
    } catch (e) {
      loadError.value = e
    }
  }

  async function loadSettings(): Promise<void> {
    settings.value = await call('settings.get')
  }

  async function loadNetworks(): Promise<void> {
    const r = await call('networks.list')
    networks.value = r.networks
  }

  function setVault(status: VaultStatus): void {
    if (appState.value) appState.value = { ...appState.value, vault: status }
  }

  async function createVault(passphrase: string): Promise<void> {
    setVault(await call('vault.create', { passphrase }))
  }
  async function unlock(passphrase: string): Promise<void> {
    setVault(await call('vault.unlock', { passphrase }))
  }
  async function lock(): Promise<void> {
    setVault(await call('vault.lock'))
  }
  async function selectNetwork(name: string): Promise<void> {
    const net = await call('networks.select', { name })
    if (appState.value) appState.value = { ...appState.value, network: net }
  }
  async function updateSettings(patch: Parameters<typeof call<'settings.update'>>[1]): Promise<void> {
    settings.value = await call('settings.update', patch)
  }

  return {
    appState,
    loadError,
    settings,
    networks,
    stream,
    hostDisconnected,
    vault,
    unlocked,
    network,
    isMainnet,
    theme,
    load,
    loadSettings,
    loadNetworks,
    setVault,
    createVault,
    unlock,
    lock,
    selectNetwork,
    updateSettings,
  }
})
