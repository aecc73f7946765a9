import type { AccountDirectory } from '../accounts'

/**
 * The accounts the session's stream pool follows, with those the exchange says do not exist
 * (status none) as balance accounts, so a first deposit shows like any balance change. Strict
 * limits: nothing streams for them, the pool refreshes their balances through /info in turn like
 * any other account's. Otherwise their balance channel streams ("no funds", live). Left out, such
 * an account was never refreshed: its row aged for as long as the desk ran (strict), or as long
 * as its status re-read each minute (beyond the 30 s data limit).
 */
export function streamTargetsOf(accounts: AccountDirectory): { address: string; kind: 'balance' | 'credit' | 'unknown' }[] {
  const targets = accounts.streamTargets()
  const listed = new Set(targets.map((t) => t.address.toLowerCase()))
  for (const v of accounts.views())
    if (v.status === 'none' && !listed.has(v.address.toLowerCase())) targets.push({ address: v.address, kind: 'balance' })
  return targets
}
