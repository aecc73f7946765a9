import type { AccountStateKind, CachedState } from '../journal/types'

/** The part of the journal that keeps the last known account state. */
export interface StateStore {
  putState(network: string, account: string, kind: AccountStateKind, value: unknown, fetchedAt?: number): void
  getState<T = unknown>(network: string, account: string, kind: AccountStateKind): CachedState<T> | null
  allStates(network: string): CachedState[]
}

export interface Known<T> {
  value: T
  fetchedAt: number
  ageMs: number
}

/**
 * Last known state per (network, account, kind), kept in the journal database so the dashboard
 * shows it at start, with its age, before the network answers. Values are the plain views the
 * UI shows (decimal strings), so nothing needs converting back. A store failure never breaks a
 * read: the cache is a convenience, the network is the truth.
 */
export class LastKnownState {
  constructor(
    private readonly store: StateStore | null,
    private readonly network: string,
    private readonly now: () => number = Date.now,
  ) {}

  save(account: string, kind: AccountStateKind, value: unknown, fetchedAt: number = this.now()): void {
    if (!this.store) return
    try {
      this.store.putState(this.network, account.toLowerCase(), kind, value, fetchedAt)
    } catch {
      // e.g. the journal is closing during shutdown; the next fetch writes again.
    }
  }

  load<T>(account: string, kind: AccountStateKind): Known<T> | null {
    if (!this.store) return null
    try {
      const c = this.store.getState<T>(this.network, account.toLowerCase(), kind)
      return c ? { value: c.value, fetchedAt: c.fetchedAt, ageMs: Math.max(0, this.now() - c.fetchedAt) } : null
    } catch {
      return null
    }
  }

  /** Every cached entry of the network, grouped by account then kind (start-up hydration). */
  all(): Map<string, Map<string, Known<unknown>>> {
    const out = new Map<string, Map<string, Known<unknown>>>()
    if (!this.store) return out
    let rows: CachedState[]
    try {
      rows = this.store.allStates(this.network)
    } catch {
      return out
    }
    for (const r of rows) {
      let m = out.get(r.account)
      if (!m) out.set(r.account, (m = new Map()))
      m.set(r.kind, { value: r.value, fetchedAt: r.fetchedAt, ageMs: Math.max(0, this.now() - r.fetchedAt) })
    }
    return out
  }
}
