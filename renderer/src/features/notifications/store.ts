import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { AlertKind, AlertNotificationEvent, AlertView, NotificationEvent } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'

const MAX_KEPT = 200

const isAlert = (n: NotificationEvent): n is AlertNotificationEvent =>
  'alertId' in n && typeof (n as AlertNotificationEvent).alertId === 'string'

/** What each alert kind is called in the panel. */
export const ALERT_KIND_LABEL: Record<AlertKind, string> = {
  'funds-received': 'Funds received',
  ltv: 'Credit line',
  'order-filled': 'Order filled',
  'earn-claimable': 'Earn claimable',
  'agent-slot-empty': 'Agent slot empty',
  'write-unresolved': 'Write unresolved',
  'team-approval': 'Needs my approval (team)',
  'team-proposal': 'My team proposals',
}

/**
 * The notification area. Alerts are main's record (kept across restarts, acknowledged there):
 * loaded with `alerts.list` and merged with the ones pushed since. Other notifications (stream
 * drops, lock, rejections) live for this session only. The bell counts alerts not yet
 * acknowledged plus session notifications not yet seen.
 */
export const useNotificationsStore = defineStore('notifications', () => {
  const items = ref<NotificationEvent[]>([])
  const seen = ref(new Set<string>())
  const alerts = ref<AlertView[]>([])
  const alertsError = ref<unknown>(null)
  let localId = 0

  /** Session notifications that are not alerts (alerts are listed from `alerts`). */
  const sessionItems = computed(() => items.value.filter((n) => !isAlert(n)))
  const unacknowledged = computed(() => alerts.value.filter((a) => a.acknowledgedAt === null).length)
  const unread = computed(() => unacknowledged.value + sessionItems.value.filter((n) => !seen.value.has(n.id)).length)

  function mergeAlert(a: AlertView): void {
    const i = alerts.value.findIndex((x) => x.id === a.id)
    if (i >= 0) alerts.value.splice(i, 1, a)
    else alerts.value = [a, ...alerts.value].sort((x, y) => Number(y.id) - Number(x.id)).slice(0, 500)
  }

  function push(n: NotificationEvent): void {
    if (items.value.some((x) => x.id === n.id)) return
    items.value = [n, ...items.value].slice(0, MAX_KEPT)
    // A pushed alert joins the persistent list at once (the next `alerts.list` fills in its account).
    if (isAlert(n) && !alerts.value.some((a) => a.id === n.alertId)) {
      mergeAlert({
        id: n.alertId,
        kind: n.alertKind,
        level: n.level,
        title: n.title,
        message: n.message,
        account: null,
        network: '',
        atMs: n.atMs,
        desktopSuppressed: !n.desktop,
        acknowledgedAt: null,
      })
    }
  }

  /** A notification raised by the renderer itself (e.g. the host connection dropped). */
  function local(kind: NotificationEvent['kind'], level: NotificationEvent['level'], title: string, message: string): void {
    push({ id: `local-${++localId}`, kind, level, title, message, atMs: Date.now() })
  }

  async function loadAlerts(): Promise<void> {
    try {
      const list = await call('alerts.list', { limit: 500 })
      // keep any pushed while the list was in flight
      const pushed = alerts.value.filter((a) => !list.some((x) => x.id === a.id) && Number(a.id) > Number(list[0]?.id ?? 0))
      alerts.value = [...pushed, ...list]
      alertsError.value = null
    } catch (e) {
      alertsError.value = e
    }
  }

  async function acknowledge(id: string): Promise<void> {
    mergeAlert(await call('alerts.acknowledge', { id }))
  }

  async function acknowledgeAll(): Promise<number> {
    const r = await call('alerts.acknowledgeAll')
    await loadAlerts()
    return r.acknowledged
  }

  function markSeen(): void {
    seen.value = new Set(items.value.map((n) => n.id))
  }

  /** Clears this session's notifications; alerts stay until acknowledged (they are main's record). */
  function clear(): void {
    items.value = []
    seen.value = new Set()
  }

  return {
    items,
    sessionItems,
    alerts,
    alertsError,
    unread,
    unacknowledged,
    push,
    local,
    loadAlerts,
    acknowledge,
    acknowledgeAll,
    markSeen,
    clear,
  }
})
