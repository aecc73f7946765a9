import { ref, shallowRef } from 'vue'
import type { WriteOutcome } from '../../../main/contract/types'
import { useJournalStore } from '../stores/journal'

/**
 * One operator action at a time per form: busy flag, last error (kept for display with its
 * code and advice), and the last write outcome, registered with the journal store so the
 * tracker follows it to its final state.
 */
export function useAction() {
  const busy = ref(false)
  const error = ref<unknown>(null)
  const outcome = shallowRef<WriteOutcome | null>(null)
  const journal = useJournalStore()

  async function run<T>(fn: () => Promise<T>): Promise<T | undefined> {
    busy.value = true
    error.value = null
    try {
      const r = await fn()
      if (r && typeof r === 'object' && 'submission' in r) {
        outcome.value = r as unknown as WriteOutcome
        journal.track(outcome.value.submission)
      }
      return r
    } catch (e) {
      error.value = e
      return undefined
    } finally {
      busy.value = false
    }
  }

  function reset(): void {
    error.value = null
    outcome.value = null
  }

  return { busy, error, outcome, run, reset }
}
