import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import type { OverviewView } from '../../../../main/contract/types'
import { call } from '../../platform/bridge/desk'
import { earlyOr } from '../../platform/bridge/early'

/**
 * The portfolio overview. Pushed `state.overview` snapshots replace the whole view in one
 * shallow assignment (one render per push, no deep reactivity over hundreds of rows).
 */
export const useOverviewStore = defineStore('overview', () => {
  const view = shallowRef<OverviewView | null>(null)
  const error = ref<unknown>(null)
  const updates = ref(0)

  let loading: Promise<void> | null = null
  /** One request at a time: the router starts it before the view mounts, and the view's own load joins it. */
  function load(): Promise<void> {
    loading ??= (async () => {
      try {
        // The first load takes the boot script's answer, asked before the app's bundle ran.
        apply(await earlyOr('portfolio.overview', () => call('portfolio.overview')))
        error.value = null
      } catch (e) {
        error.value = e
      } finally {
        loading = null
      }
    })()
    return loading
  }

  function apply(next: OverviewView): void {
    // Ignore an older snapshot arriving after a newer one.
    if (view.value && next.asOf < view.value.asOf) return
    view.value = next
    updates.value++
  }

  return { view, error, updates, load, apply }
})
