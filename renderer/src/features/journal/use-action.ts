import { ref, shallowRef } from 'vue'
import type { WriteOutcome } from '../../../../main/contract/types'
import { DeskCallError } from '../../shared/desk-call-error'
import { errorTitle as titleFor } from '../../shared/utils/error-title'
import { useJournalStore } from './store'

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
      await followJournaled(e)
      return undefined
    } finally {
      busy.value = false
    }
  }

  /**
   * A write that failed after it was journaled (rejected, or outcome unknown) names its cloid:
   * show that submission and follow it, so "reconciling" ends visibly in its final state.
   */
  async function followJournaled(e: unknown): Promise<void> {
    const cloid = e instanceof DeskCallError ? e.details?.cloid : undefined
    if (typeof cloid !== 'string' || !/^0x[0-9a-fA-F]{32}$/.test(cloid)) return
    try {
      const submission = await journal.get(cloid)
      outcome.value = { submission, leaves: [] }
      journal.track(submission)
    } catch {
      // the error notice still shows the code and what to do
    }
  }

  function reset(): void {
    error.value = null
    outcome.value = null
  }

  /** Title for the error notice: a decline is neutral, an unknown outcome is not a failure (yet). */
  function errorTitle(verb: string): string {
    return titleFor(error.value, verb)
  }

  return { busy, error, outcome, run, reset, errorTitle }
}
