import type { NetworkSession } from '../../session'
import type { AccountDirectory } from '../accounts'

/**
 * The accounts the session's stream pool follows. Strict limits add those the exchange says do
 * not exist (status none) as balance accounts: nothing streams for them, so the pool refreshes
 * their balances through /info in turn like any other account's, and a first deposit shows within
 * the same age bound (the overview then reads the identity again). Left out, such an account was
 * never refreshed: its row aged for as long as the desk ran. Without strict limits they stay out
 * (subscriptions for nothing); their status is read again each minute instead.
 */
export function streamTargetsOf(
  accounts: AccountDirectory,
  s: NetworkSession,
): { address: string; kind: 'balance' | 'credit' | 'unknown' }[] {
  const targets = accounts.streamTargets()
  if (s.pool?.strict !== true) return targets
  const listed = new Set(targets.map((t) => t.address.toLowerCase()))
  for (const v of accounts.views())
    if (v.status === 'none' && !listed.has(v.address.toLowerCase())) targets.push({ address: v.address, kind: 'balance' })
  return targets
}
