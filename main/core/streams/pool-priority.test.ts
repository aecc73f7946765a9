import { describe, expect, it } from 'vitest'
import { StreamPool } from './pool'

const addr = (i: number) => '0x' + i.toString(16).padStart(40, '0')

/** A strict pool that never connects: only its plan (which accounts stream) is looked at. */
function planned(n: number) {
  const pool = new StreamPool({ wsUrl: 'ws://127.0.0.1:1', strict: true, reconcileIntervalMs: 0 })
  pool.setAccounts(Array.from({ length: n }, (_, i) => ({ address: addr(i), kind: 'balance' as const })))
  return pool
}

describe('strict priority: an open page, then the overview rows, then orders and writes', () => {
  it('an open page streams before the overview rows; rows of the overview before accounts off screen', () => {
    const pool = planned(8)
    // 3 whole balance accounts fit on one socket of 10 subscriptions.
    pool.setPriority('writes', [addr(7)])
    pool.setPriority('overview', [addr(4), addr(5)])
    pool.setPriority('screen', [addr(6)])
    expect(pool.liveUsers()).toEqual([addr(6), addr(4), addr(5)])
    expect(pool.rankOf(addr(6))).toBeGreaterThan(pool.rankOf(addr(4)))
    expect(pool.rankOf(addr(4))).toBeGreaterThan(pool.rankOf(addr(7)))
  })

  it('with every account on the overview (no filter), those with writes still come first among them', () => {
    const pool = planned(8)
    pool.setPriority(
      'overview',
      Array.from({ length: 8 }, (_, i) => addr(i)),
    )
    pool.setPriority('writes', [addr(7), addr(5)])
    expect(pool.liveUsers().slice(0, 2).sort()).toEqual([addr(5), addr(7)])
    // The page's lease given back: its account competes as an overview row again.
    pool.setPriority('screen', [addr(2)])
    expect(pool.liveUsers()[0]).toBe(addr(2))
    pool.setPriority('screen', [])
    expect(pool.rankOf(addr(2))).toBe(pool.rankOf(addr(0)))
  })
})
