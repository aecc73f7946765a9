import type { DataTableColumns } from 'naive-ui'
import { compareDecimal, isDecimal } from './decimal'

/**
 * Sorting for the desk's tables: numbers as numbers, decimal strings exactly (never through a
 * float), other text case-insensitively; empty values last in both directions' natural order.
 */
export function compareValues(a: unknown, b: unknown): number {
  const empty = (v: unknown) => v === null || v === undefined || v === '' || v === '—'
  if (empty(a) || empty(b)) return empty(a) === empty(b) ? 0 : empty(a) ? 1 : -1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0
  const sa = String(a)
  const sb = String(b)
  const da = sa.replace(/,/g, '')
  const db = sb.replace(/,/g, '')
  if (isDecimal(da.replace(/^-/, '')) && isDecimal(db.replace(/^-/, ''))) return signedCompare(da, db)
  return sa.localeCompare(sb, undefined, { sensitivity: 'base', numeric: true })
}

function signedCompare(a: string, b: string): number {
  const na = a.startsWith('-')
  const nb = b.startsWith('-')
  if (na !== nb) return na ? -1 : 1
  const c = compareDecimal(a.replace(/^-/, ''), b.replace(/^-/, ''))
  return na ? -c : c
}

/**
 * Makes every column of a table sortable by its key (or by `by[key]` when the cell shows a value
 * other than the row field, e.g. a name for an address). A column with `sorter: false` stays fixed.
 */
export function sortable<T>(columns: DataTableColumns<T>, by: Partial<Record<string, (row: T) => unknown>> = {}): DataTableColumns<T> {
  return columns.map((c) => {
    const col = c as { key?: string | number; sorter?: unknown; type?: string; children?: unknown }
    if (col.sorter !== undefined || col.type !== undefined || col.children !== undefined || col.key === undefined) return c
    const key = String(col.key)
    const get = by[key] ?? ((r: T) => (r as Record<string, unknown>)[key])
    return { ...c, sorter: (a: T, b: T) => compareValues(get(a), get(b)) } as typeof c
  })
}
