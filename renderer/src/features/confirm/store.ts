import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { ConfirmRequest } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

/** Confirmation requests pushed by main before it signs with an owner key; answered one at a time. */
export const useConfirmStore = defineStore('confirm', () => {
  const queue = ref<ConfirmRequest[]>([])
  const busy = ref(false)
  const error = ref<unknown>(null)
  const current = computed(() => queue.value[0] ?? null)

  function request(r: ConfirmRequest): void {
    if (!queue.value.some((q) => q.id === r.id)) queue.value = [...queue.value, r]
  }

  async function respond(approved: boolean, passphrase?: string): Promise<boolean> {
    const r = current.value
    if (!r) return false
    busy.value = true
    error.value = null
    try {
      await call(
        'confirm.respond',
        passphrase !== undefined && passphrase !== '' ? { id: r.id, approved, passphrase } : { id: r.id, approved },
      )
      queue.value = queue.value.filter((q) => q.id !== r.id)
      return true
    } catch (e) {
      error.value = e
      return false
    } finally {
      busy.value = false
    }
  }

  /** Drops a request answered elsewhere (another window) or ended by main. */
  function close(id: string): void {
    queue.value = queue.value.filter((q) => q.id !== id)
  }

  /** Drops requests that main has already expired. */
  function expire(nowMs: number): void {
    queue.value = queue.value.filter((q) => q.expiresAt > nowMs)
  }

  return { queue, current, busy, error, request, respond, close, expire }
})
