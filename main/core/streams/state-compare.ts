import type { LiveBalance, LiveCredit, LiveOrder } from './live-state'

/** Whether two balance lists are the same (same assets in the same order, same amounts). */
export function sameBalances(a: readonly LiveBalance[], b: readonly LiveBalance[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.assetId !== y.assetId || x.total !== y.total || x.locked !== y.locked || x.available !== y.available || x.coin !== y.coin)
      return false
  }
  return true
}

/** How many assets differ between two balance lists (an asset listed in one only counts). */
export function assetsMoved(a: readonly LiveBalance[], b: readonly LiveBalance[]): number {
  const before = new Map(a.map((x) => [x.assetId, x]))
  let moved = 0
  for (const y of b) {
    const x = before.get(y.assetId)
    before.delete(y.assetId)
    if (!x || x.total !== y.total || x.locked !== y.locked || x.available !== y.available) moved++
  }
  return moved + before.size
}

export function samePositions(a: LiveCredit, b: LiveCredit): boolean {
  if (a.positions.length !== b.positions.length) return false
  for (let i = 0; i < a.positions.length; i++) {
    const x = a.positions[i]!
    const y = b.positions[i]!
    if (x.asset_id !== y.asset_id || x.actual_qty !== y.actual_qty || x.pending_exposure_qty !== y.pending_exposure_qty) return false
  }
  return true
}

export function sameCredit(a: LiveCredit, b: LiveCredit): boolean {
  return a.authorized === b.authorized && a.status === b.status && a.creditUsdAtoms === b.creditUsdAtoms && samePositions(a, b)
}

export function sameOrders(a: readonly LiveOrder[], b: readonly LiveOrder[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.oid !== y.oid || x.sz !== y.sz || x.price !== y.price || x.origSz !== y.origSz || x.cloid !== y.cloid) return false
  }
  return true
}

/** Some order resting in both snapshots with a different remaining size: it traded. */
export function anyPartiallyFilled(prev: readonly LiveOrder[], next: readonly LiveOrder[]): boolean {
  if (prev.length === 0 || next.length === 0) return false
  const before = new Map<bigint, string>()
  for (const o of prev) before.set(o.oid, o.sz)
  for (const o of next) {
    const sz = before.get(o.oid)
    if (sz !== undefined && sz !== o.sz) return true
  }
  return false
}
