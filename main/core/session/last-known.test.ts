import { describe, expect, it } from 'vitest'
import { LastKnownState, type StateRow } from './last-known'
import { memoryStateStore } from './testing/memory-state-store'

/** A store that counts its transactions (one `putStates` call is one disk sync in the journal). */
function countingStore() {
  const inner = memoryStateStore()
  const batches: StateRow[][] = []
  return {
    batches,
    store: {
      ...inner,
      putStates: (network: string, rows: readonly StateRow[]) => {
        batches.push([...rows])
        for (const r of rows) inner.putState(network, r.account, r.kind, r.value, r.fetchedAt)
      },
    },
  }
}

describe('last-known state, write-behind', () => {
  it('holds saves in memory, reads them back at once, and stores the newest per key in one transaction', () => {
    const { store, batches } = countingStore()
    const lk = new LastKnownState(store, 'sandbox', { now: () => 5_000, flushMs: 60_000 })
    lk.save('0xAA', 'balances', [{ assetId: 1, total: '1' }], 1_000)
    lk.save('0xaa', 'balances', [{ assetId: 1, total: '2' }], 2_000)
    lk.save('0xaa', 'balances', [{ assetId: 1, total: 'late' }], 1_500) // an older answer arriving late
    lk.save('0xbb', 'status', { kind: 'balance' }, 2_000)
    expect(batches).toHaveLength(0)
    expect(store.getState('sandbox', '0xaa', 'balances')).toBeNull()
    expect(lk.load('0xaa', 'balances')).toEqual({ value: [{ assetId: 1, total: '2' }], fetchedAt: 2_000, ageMs: 3_000 })
    expect([...lk.all().keys()].sort()).toEqual(['0xaa', '0xbb'])
    lk.flush()
    expect(batches).toHaveLength(1)
    expect(batches[0]!.map((r) => `${r.account}:${r.kind}`).sort()).toEqual(['0xaa:balances', '0xbb:status'])
    // A restart (a new instance over the same store) reads what was flushed.
    const next = new LastKnownState(store, 'sandbox', { now: () => 5_000 })
    expect(next.load('0xaa', 'balances')?.value).toEqual([{ assetId: 1, total: '2' }])
    lk.flush()
    expect(batches).toHaveLength(1) // nothing held: no empty transaction
  })

  it('flushes by itself after flushMs', async () => {
    const { store, batches } = countingStore()
    const lk = new LastKnownState(store, 'sandbox', { flushMs: 20 })
    lk.save('0xaa', 'agents', [], 1)
    await new Promise((r) => setTimeout(r, 80))
    expect(batches).toHaveLength(1)
    expect(store.getState('sandbox', '0xaa', 'agents')?.fetchedAt).toBe(1)
  })

  it('without flushMs writes through at once; a store failure never breaks a save or a read', () => {
    const { store, batches } = countingStore()
    const lk = new LastKnownState(store, 'sandbox')
    lk.save('0xaa', 'credit', { x: '1' }, 1)
    expect(batches).toHaveLength(1)
    const broken = new LastKnownState(
      {
        ...store,
        putStates: () => {
          throw new Error('closed')
        },
        getState: () => {
          throw new Error('closed')
        },
      },
      'sandbox',
    )
    expect(() => broken.save('0xaa', 'credit', {}, 1)).not.toThrow()
    expect(broken.load('0xaa', 'credit')).toBeNull()
  })
})
