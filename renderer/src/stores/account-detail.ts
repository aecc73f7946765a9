import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import type { AccountDetailView, CreditHealthView, CreditSample } from '../../../main/contract/types'
import { call } from '../bridge/desk'

/** Detail of the account on screen (and its credit health), refreshed by pushed events. */
export const useAccountDetailStore = defineStore('accountDetail', () => {
  const detail = shallowRef<AccountDetailView | null>(null)
  const credit = shallowRef<CreditHealthView | null>(null)
  const history = shallowRef<CreditSample[]>([])
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

  async function loadCredit(addr: string, sinceMs: number): Promise<void> {
    address.value = addr
    try {
      const [c, h] = await Promise.all([call('credit.health', { address: addr as `0x${string}` }), call('credit.history', { address: addr as `0x${string}`, sinceMs })])
      credit.value = c
      history.value = h
      error.value = null
    } catch (e) {
      error.value = e
    }
  }

  function applyAccount(d: AccountDetailView): void {
    if (address.value && d.account.address.toLowerCase() === address.value.toLowerCase()) detail.value = d
  }

  function applyCredit(c: CreditHealthView): void {
    if (!address.value || c.address.toLowerCase() !== address.value.toLowerCase()) return
    credit.value = c
    history.value = [...history.value, { timeMs: Date.now(), creditUsd: c.creditUsd, availableUsd: c.availableUsd }].slice(-5000)
  }

  return { detail, credit, history, address, error, load, loadCredit, applyAccount, applyCredit }
})
