import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import type { AccountDetailView } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

/** Detail of the account on screen, refreshed by pushed events. */
export const useAccountDetailStore = defineStore('accountDetail', () => {
  const detail = shallowRef<AccountDetailView | null>(null)
  const address = ref<string | null>(null)
  const error = ref<unknown>(null)

  async function load(addr: string): Promise<void> {
    address.value = addr
    try {
      detail.value = await call('account.detail', { address: addr as `0x${string}` })
      error.value = null
    } catch (e) {
      error.value = e
    }
  }

  /** Every account page main pushed, by address: other screens (settle's "balances now") follow them too. */
  const latest = shallowRef<Record<string, AccountDetailView>>({})

  function applyAccount(d: AccountDetailView): void {
    latest.value = { ...latest.value, [d.account.address.toLowerCase()]: d }
    if (address.value && d.account.address.toLowerCase() === address.value.toLowerCase()) detail.value = d
  }

  return { detail, address, error, latest, load, applyAccount }
})
