import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { AccountView, Address, AssetView, MarketView } from '../../../../main/contract/types'
import { formatAccount } from '../../../../main/contract/format'
import { call } from '../../platform/bridge/desk'

/** Known accounts, markets and assets (precision comes from here). */
export const useAccountsStore = defineStore('accounts', () => {
  const accounts = ref<AccountView[]>([])
  const markets = ref<MarketView[]>([])
  const assets = ref<AssetView[]>([])
  const loaded = ref(false)

  const byAddress = computed(() => new Map(accounts.value.map((a) => [a.address.toLowerCase(), a])))
  const creditAccounts = computed(() => accounts.value.filter((a) => a.kind === 'credit'))
  const balanceAccounts = computed(() => accounts.value.filter((a) => a.kind === 'balance'))
  const signable = computed(() => accounts.value.filter((a) => a.hasKey))

  function account(address: string): AccountView | undefined {
    return byAddress.value.get(address.toLowerCase())
  }
  function asset(assetId: number): AssetView | undefined {
    return assets.value.find((a) => a.assetId === assetId)
  }
  function labelOf(address: string): string {
    return formatAccount(account(address) ?? address).text
  }

  async function load(): Promise<void> {
    accounts.value = await call('accounts.list')
    loaded.value = true
  }
  async function loadMarkets(): Promise<void> {
    const r = await call('markets.list')
    markets.value = r.markets
    assets.value = r.assets
  }
  function upsert(a: AccountView): void {
    const i = accounts.value.findIndex((x) => x.address.toLowerCase() === a.address.toLowerCase())
    if (i >= 0) accounts.value.splice(i, 1, a)
    else accounts.value.push(a)
  }
  async function generate(label: string): Promise<AccountView> {
    const a = await call('accounts.generate', { label })
    upsert(a)
    return a
  }
  async function watch(address: Address, label: string): Promise<AccountView> {
    const a = await call('accounts.watch', { address, label })
    upsert(a)
    return a
  }
  async function importKeystore(path: string, passphrase: string, label: string): Promise<AccountView> {
    const a = await call('accounts.importKeystore', { path, passphrase, label })
    upsert(a)
    return a
  }
  async function update(address: Address, patch: { label?: string; group?: string }): Promise<void> {
    upsert(await call('accounts.update', { address, ...patch }))
  }

  /** Adds the sandbox's public demo keys (sandbox network only). */
  async function importSandboxKeys(): Promise<AccountView[]> {
    const added = await call('accounts.importSandboxKeys')
    for (const a of added) upsert(a)
    return added
  }
  /** The host's file picker for a keystore; null when the operator cancelled. */
  async function chooseKeystoreFile(): Promise<string | null> {
    const r = await call('dialog.openFile', { purpose: 'keystore' })
    return r.path ?? null
  }

  return {
    importSandboxKeys,
    chooseKeystoreFile,
    accounts,
    markets,
    assets,
    loaded,
    creditAccounts,
    balanceAccounts,
    signable,
    account,
    asset,
    labelOf,
    load,
    loadMarkets,
    upsert,
    generate,
    watch,
    importKeystore,
    update,
  }
})
