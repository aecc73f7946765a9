import { computed, ref, type Ref } from 'vue'
import { compareValues } from '../utils/sortable'

/**
 * Sorting for a plain HTML table (the data tables use `sortable()`): click a header button to
 * sort by that column, again to reverse, a third time to restore the given order. `ariaSort`
 * feeds the header's aria-sort so a screen reader hears the order.
 */
export function useSorted<T>(rows: Ref<readonly T[]>, by: Record<string, (row: T) => unknown>) {
  const key = ref<string | null>(null)
  const dir = ref<'ascending' | 'descending'>('ascending')
  const sorted = computed(() => {
    const k = key.value
    if (k === null || !by[k]) return rows.value
    const get = by[k]
    const out = [...rows.value].sort((a, b) => compareValues(get(a), get(b)))
    return dir.value === 'ascending' ? out : out.reverse()
  })
  function sortBy(k: string): void {
    if (key.value !== k) {
      key.value = k
      dir.value = 'ascending'
    } else if (dir.value === 'ascending') dir.value = 'descending'
    else key.value = null
  }
  const ariaSort = (k: string): 'ascending' | 'descending' | 'none' => (key.value === k ? dir.value : 'none')
  return { sorted, sortBy, ariaSort }
}
