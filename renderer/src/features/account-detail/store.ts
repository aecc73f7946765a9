import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import type { AccountDetailView } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'
import { keepUnchanged } from './keep-unchanged'

/** Detail of the account on screen, refreshed by pushed events. */
export const useAccountDetailStore = defineStore('accountDetail', () => {
  const detail = shallowRef<AccountDetailView | null>(null)
  const address = ref<string | null>(null)
  const error = ref<unknown>(null)

  /** The page for `addr` as pushed or read, sharing the lists that did not change with the page shown before it. */
  function shared(d: AccountDetailView): AccountDetailView {
    const addr = d.account.address.toLowerCase()
    return keepUnchanged(latest.value[addr] ?? (detail.value?.account.address.toLowerCase() === addr ? detail.value : null), d)
  }

  async function load(addr: string): Promise<void> {
    address.value = addr
    try {
      const d = shared(await call('account.detail', { address: addr as `0x${string}` }))
      if (address.value?.toLowerCase() === addr.toLowerCase()) detail.value = d
      error.value = null
    } catch (e) {
      error.value = e
    }
  }

  /** Every account page main pushed, by address: other screens (settle's "balances now") follow them too. */
  const latest = shallowRef<Record<string, AccountDetailView>>({})

  function applyAccount(pushed: AccountDetailView): void {
    const d = shared(pushed)
    latest.value = { ...latest.value, [d.account.address.toLowerCase()]: d }
    if (address.value && d.account.address.toLowerCase() === address.value.toLowerCase()) detail.value = d
  }

  return { detail, address, error, latest, load, applyAccount }
})
