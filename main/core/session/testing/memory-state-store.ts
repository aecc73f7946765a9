import type { CachedState } from '../../journal/types'
import type { StateStore } from '../last-known'

/** The journal's last-known state table, in memory (tests of what a restart reads from it). */
export function memoryStateStore(): StateStore {
  const rows = new Map<string, CachedState>()
  return {
    putState: (network, account, kind, value, fetchedAt = Date.now()) =>
      void rows.set(`${network}|${account}|${kind}`, { network, account, kind, value, fetchedAt }),
    getState: <T>(network: string, account: string, kind: string) =>
      (rows.get(`${network}|${account}|${kind}`) as CachedState<T> | undefined) ?? null,
    allStates: (network) => [...rows.values()].filter((r) => r.network === network),
  }
}
