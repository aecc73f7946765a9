import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { NotificationEvent } from '../../../../main/contract/types'

const MAX_KEPT = 200

/** The notification area: fills, rejections, health warnings, stream disconnects, lock. */
export const useNotificationsStore = defineStore('notifications', () => {
  const items = ref<NotificationEvent[]>([])
  const seen = ref(new Set<string>())
  let localId = 0

  const unread = computed(() => items.value.filter((n) => !seen.value.has(n.id)).length)

  function push(n: NotificationEvent): void {
    if (items.value.some((x) => x.id === n.id)) return
    items.value = [n, ...items.value].slice(0, MAX_KEPT)
  }

  /** A notification raised by the renderer itself (e.g. the host connection dropped). */
  function local(kind: NotificationEvent['kind'], level: NotificationEvent['level'], title: string, message: string): void {
    push({ id: `local-${++localId}`, kind, level, title, message, atMs: Date.now() })
  }

  function markSeen(): void {
    seen.value = new Set(items.value.map((n) => n.id))
  }

  function clear(): void {
    items.value = []
    seen.value = new Set()
  }

  return { items, unread, push, local, markSeen, clear }
})
