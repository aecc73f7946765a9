import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import type { CreditHealthView, CreditSample } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

/** Credit health of the account on screen and its history, extended by pushed events. */
export const useCreditStore = defineStore('credit', () => {
  const credit = shallowRef<CreditHealthView | null>(null)
  const history = shallowRef<CreditSample[]>([])
  const address = ref<string | null>(null)
  const error = ref<unknown>(null)

  async function load(addr: string, sinceMs: number): Promise<void> {
    address.value = addr
    try {
      const [c, h] = await Promise.all([
        call('credit.health', { address: addr as `0x${string}` }),
        call('credit.history', { address: addr as `0x${string}`, sinceMs }),
      ])
      credit.value = c
      history.value = h
      error.value = null
    } catch (e) {
      error.value = e
    }
  }

  function apply(c: CreditHealthView): void {
    if (!address.value || c.address.toLowerCase() !== address.value.toLowerCase()) return
    credit.value = c
    history.value = [...history.value, { timeMs: Date.now(), creditUsd: c.creditUsd, availableUsd: c.availableUsd }].slice(-5000)
  }

  return { credit, history, address, error, load, apply }
})
