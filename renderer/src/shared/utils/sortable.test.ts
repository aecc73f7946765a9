import { describe, expect, it } from 'vitest'
import { compareValues, sortable } from './sortable'

describe('table sorting', () => {
  it('orders decimal strings exactly, numbers as numbers, text case-insensitively, empty values last', () => {
    expect(['10.5', '9.99', '100', '-2', '0.000000000000000001'].sort(compareValues)).toEqual([
      '-2',
      '0.000000000000000001',
      '9.99',
      '10.5',
      '100',
    ])
    expect(['1,000.5', '999'].sort(compareValues)).toEqual(['999', '1,000.5'])
    expect([3, 1, 2].sort(compareValues)).toEqual([1, 2, 3])
    expect(['beta', 'Alpha', null, 'gamma'].sort(compareValues)).toEqual(['Alpha', 'beta', 'gamma', null])
    // ids above 2^53 compare exactly
    expect(['9007199254740993', '9007199254740992'].sort(compareValues)).toEqual(['9007199254740992', '9007199254740993'])
  })

  it('adds a sorter by key (or by a given value) to every column except those that opt out', () => {
    type Row = { a: string; b: string }
    const cols = sortable<Row>([{ key: 'a' }, { key: 'b' }, { key: 'c', sorter: false }], { b: (r) => r.b.length }) as {
      sorter?: unknown
    }[]
    const rows: Row[] = [
      { a: 'y', b: 'xxx' },
      { a: 'x', b: 'x' },
    ]
    const sa = cols[0]!.sorter as (x: Row, y: Row) => number
    const sb = cols[1]!.sorter as (x: Row, y: Row) => number
    expect([...rows].sort(sa).map((r) => r.a)).toEqual(['x', 'y'])
    expect([...rows].sort(sb).map((r) => r.b)).toEqual(['x', 'xxx'])
    expect(cols[2]!.sorter).toBe(false)
  })
})

describe('useSorted (plain tables)', () => {
  it('sorts by a column, reverses on the second click, restores the given order on the third', async () => {
    const { ref } = await import('vue')
    const { useSorted } = await import('../composables/use-sorted')
    const rows = ref([
      { n: 'b', v: '10' },
      { n: 'a', v: '9.5' },
      { n: 'c', v: '100' },
    ])
    const t = useSorted(rows, { n: (r) => r.n, v: (r) => r.v })
    t.sortBy('v')
    expect(t.sorted.value.map((r) => r.v)).toEqual(['9.5', '10', '100'])
    expect(t.ariaSort('v')).toBe('ascending')
    t.sortBy('v')
    expect(t.sorted.value.map((r) => r.v)).toEqual(['100', '10', '9.5'])
    t.sortBy('v')
    expect(t.sorted.value.map((r) => r.n)).toEqual(['b', 'a', 'c'])
    expect(t.ariaSort('v')).toBe('none')
  })
})
