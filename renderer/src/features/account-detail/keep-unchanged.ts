import type { AccountDetailView } from '../../../../main/contract/types'

/**
 * `next` with each list (balances, open orders, fills) replaced by the one `prev` held when no
 * row changed. Main pushes the whole page on every change of the account (an order placed, a
 * cancel, a balance frame) and every few seconds; a list kept by identity is one Vue does not
 * render again, so a cancel does not re-render 200 fills before its result is shown.
 */
export function keepUnchanged(prev: AccountDetailView | null, next: AccountDetailView): AccountDetailView {
  if (!prev || prev.account.address.toLowerCase() !== next.account.address.toLowerCase()) return next
  const balances = sameRows(prev.balances, next.balances) ? prev.balances : next.balances
  const openOrders = sameRows(prev.openOrders, next.openOrders) ? prev.openOrders : next.openOrders
  const fills = sameRows(prev.fills, next.fills) ? prev.fills : next.fills
  if (balances === next.balances && openOrders === next.openOrders && fills === next.fills) return next
  return { ...next, balances, openOrders, fills }
}

/** Same length and, row by row, the same fields with the same values (rows are flat: strings, numbers, null). */
function sameRows<T extends object>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (!sameFlat(a[i]!, b[i]!)) return false
  return true
}

function sameFlat(x: object, y: object): boolean {
  const kx = Object.keys(x)
  if (kx.length !== Object.keys(y).length) return false
  for (const k of kx) {
    const vx = (x as Record<string, unknown>)[k]
    const vy = (y as Record<string, unknown>)[k]
    // A nested value (none today) counts as changed unless it is the same object.
    if (vx !== vy) return false
  }
  return true
}
