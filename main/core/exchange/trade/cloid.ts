import { randomBytes } from 'node:crypto'
import { DeskError } from '../../errors/desk-error'
import type { TradeAction } from '../../wire'

export const CLOID_RE = /^0x[0-9a-fA-F]{32}$/

/** A fresh client order id: 16 random bytes, `0x`-prefixed lower-case hex. */
export function newCloid(): string {
  return '0x' + randomBytes(16).toString('hex')
}

export function checkCloid(cloid: string): string {
  if (!CLOID_RE.test(cloid))
    throw new DeskError('InvalidCloid', `cloid must be 0x + 32 hex digits, got "${cloid.slice(0, 80)}"`, { cloid: cloid.slice(0, 80) })
  return cloid.toLowerCase()
}

/**
 * Gives the action a cloid where it can carry one (so its outcome can be reconciled by
 * cloid), and returns the key the journal files it under. Actions that cannot carry a cloid
 * (`cancel` by oid, `cancelAll`, agent approvals) are journaled under a local id and reconciled
 * by their effect instead.
 */
export function withCloid<A extends TradeAction>(action: A): { action: A; key: string; reconcilableByCloid: boolean } {
  switch (action.type) {
    case 'order':
    case 'transfer':
    case 'activateFor':
    case 'withdraw':
    case 'settle':
    case 'repay': {
      const cloid = action.cloid !== undefined ? checkCloid(action.cloid) : newCloid()
      return { action: { ...action, cloid }, key: cloid, reconcilableByCloid: true }
    }
    case 'modify': {
      const rep = action.replacement
      const cloid = rep.cloid ? checkCloid(rep.cloid) : newCloid()
      return { action: { ...action, replacement: { ...rep, cloid } }, key: cloid, reconcilableByCloid: true }
    }
    case 'batch': {
      // Every order / modify item gets its own cloid; the first one names the batch.
      let first: string | undefined
      const items = action.items.map((it) => {
        if (it.type === 'order') {
          const cloid = it.cloid !== undefined ? checkCloid(it.cloid) : newCloid()
          first ??= cloid
          return { ...it, cloid }
        }
        if (it.type === 'modify') {
          const cloid = it.replacement.cloid ? checkCloid(it.replacement.cloid) : newCloid()
          first ??= cloid
          return { ...it, replacement: { ...it.replacement, cloid } }
        }
        return it
      })
      return { action: { ...action, items }, key: first ?? newCloid(), reconcilableByCloid: first !== undefined }
    }
    default:
      return { action, key: newCloid(), reconcilableByCloid: false }
  }
}
