import { getCurrentScope, onScopeDispose, watch } from 'vue'
import type { ScreenTarget } from '../../../main/contract/types'
import { useScreenStore } from './screen/store'

/** The overview sends at most this many visible accounts (main refuses more). */
export const MAX_OVERVIEW_LEASE = 200

/**
 * Holds a lease on what this screen shows while it is mounted: taken on mount and whenever the
 * target changes, renewed at the pace main asks for, given back on unmount (main also ends it
 * when the window goes or when renewals stop). `target` null: nothing to watch (no lease).
 * A failed call leaves the screen working; the next change or renewal tries again.
 */
export function useScreenLease(target: () => ScreenTarget | null): void {
  const store = useScreenStore()
  let leaseId: string | null = null
  let renewTimer: ReturnType<typeof setTimeout> | null = null
  let wanted: ScreenTarget | null = null
  let busy = false
  let again = false
  let disposed = false

  const stopRenewing = () => {
    if (renewTimer) clearTimeout(renewTimer)
    renewTimer = null
  }

  /** One call at a time; the latest target wins (a filter typed fast makes one call per pause). */
  async function sync(): Promise<void> {
    if (busy) {
      again = true
      return
    }
    busy = true
    try {
      do {
        again = false
        stopRenewing()
        const t = disposed ? null : wanted
        if (t === null) {
          const id = leaseId
          leaseId = null
          if (id) await store.release(id).catch(() => {})
          continue
        }
        try {
          const lease = await store.take(t, leaseId ?? undefined)
          leaseId = lease.leaseId
          if (!disposed) renewTimer = setTimeout(() => void sync(), lease.renewEveryMs)
        } catch {
          // Main unreachable for now: the next change or mount tries again.
        }
        // Unmounted while the lease was being taken: give it back.
        if (disposed) again = true
      } while (again || (disposed && leaseId !== null))
    } finally {
      busy = false
    }
  }

  watch(
    () => {
      const t = target()
      return t === null ? null : JSON.stringify(t)
    },
    (key) => {
      wanted = key === null ? null : (JSON.parse(key) as ScreenTarget)
      void sync()
    },
    { immediate: true },
  )

  if (getCurrentScope())
    onScopeDispose(() => {
      disposed = true
      stopRenewing()
      void sync()
    })
}
