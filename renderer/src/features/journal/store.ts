import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { SubmissionView } from '../../../../main/contract/types'
import type { ChannelArgs } from '../../../../main/contract/channels'
import { call } from '../../platform/bridge/desk'

export type JournalFilter = ChannelArgs<'journal.query'>

/** Every submission the desk journaled; `journal.changed` keeps entries current. */
export const useJournalStore = defineStore('journal', () => {
  const entries = ref<SubmissionView[]>([])
  const byCloid = ref<Record<string, SubmissionView>>({})
  const error = ref<unknown>(null)
  const filter = ref<JournalFilter>({ limit: 500 })

  async function load(f: JournalFilter = filter.value): Promise<void> {
    filter.value = f
    try {
      entries.value = await call('journal.query', f)
      for (const e of entries.value) byCloid.value[e.cloid] = e
      error.value = null
    } catch (e) {
      error.value = e
    }
  }

  /** Applies a pushed change: every follower of this cloid sees it. */
  function apply(s: SubmissionView): void {
    byCloid.value[s.cloid] = s
    const i = entries.value.findIndex((e) => e.id === s.id)
    if (i >= 0) entries.value.splice(i, 1, s)
    else if (matches(s, filter.value)) entries.value.unshift(s)
  }

  function track(s: SubmissionView): void {
    const known = byCloid.value[s.cloid]
    if (!known || known.updatedAt <= s.updatedAt) byCloid.value[s.cloid] = s
  }

  async function exportAs(format: 'csv' | 'json'): Promise<{ filename: string; mime: string; content: string }> {
    const { limit: _limit, ...rest } = filter.value
    return call('journal.export', { format, filter: rest })
  }

  /** One submission by its client order id (to follow a write that failed after it was journaled). */
  async function get(cloid: string): Promise<SubmissionView> {
    return call('journal.get', { cloid })
  }

  /** Action types the journal of the selected network holds. */
  const actionTypes = (): Promise<string[]> => call('journal.actionTypes')

  return { entries, byCloid, error, filter, load, apply, track, exportAs, get, actionTypes }
})

function matches(s: SubmissionView, f: JournalFilter): boolean {
  if (f.account && f.account.toLowerCase() !== s.account.toLowerCase()) return false
  if (f.actionType && f.actionType !== s.actionType) return false
  if (f.state && f.state !== s.state) return false
  if (f.unresolvedOnly && !['prepared', 'sent', 'unknown'].includes(s.state)) return false
  if (f.sinceMs !== undefined && s.createdAt < f.sinceMs) return false
  if (f.untilMs !== undefined && s.createdAt > f.untilMs) return false
  // A pushed new entry under a search is shown only once main's search finds it (on the next load).
  if (f.q) return false
  return true
}
