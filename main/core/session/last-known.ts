import type { AccountStateKind, CachedState } from '../journal/types'

/** One last-known value to store. */
export interface StateRow {
  account: string
  kind: AccountStateKind
  value: unknown
  fetchedAt: number
}

/** The part of the journal that keeps the last known account state. */
export interface StateStore {
  putState(network: string, account: string, kind: AccountStateKind, value: unknown, fetchedAt?: number): void
  /** Several rows in one transaction (one disk sync); without it, row by row. */
  putStates?(network: string, rows: readonly StateRow[]): void
  getState<T = unknown>(network: string, account: string, kind: AccountStateKind): CachedState<T> | null
  allStates(network: string): CachedState[]
}

export interface Known<T> {
  value: T
  fetchedAt: number
  ageMs: number
}

export interface LastKnownOptions {
  now?: () => number
  /**
   * Write-behind: values are kept in memory and stored together at most this often (0: at once).
   * The journal syncs every commit to disk (it must never lose a submission), so a cache write per
   * push would stall the event loop a disk sync each; a cache is allowed to lose its last second.
   */
  flushMs?: number
}

/**
 * Last known state per (network, account, kind), kept in the journal database so the dashboard
 * shows it at start, with its age, before the network answers. Values are the plain views the
 * UI shows (decimal strings), so nothing needs converting back. A store failure never breaks a
 * read: the cache is a convenience, the network is the truth.
 */
export class LastKnownState {
  private readonly now: () => number
  private readonly flushMs: number
  /** Values saved since the last flush, by account|kind (the newest per key). */
  private readonly pending = new Map<string, StateRow>()
  private timer: ReturnType<typeof setTimeout> | null = null

  constructor(
    private readonly store: StateStore | null,
    private readonly network: string,
    opts: LastKnownOptions | (() => number) = {},
  ) {
    const o = typeof opts === 'function' ? { now: opts } : opts
    this.now = o.now ?? Date.now
    this.flushMs = o.flushMs ?? 0
  }

  save(account: string, kind: AccountStateKind, value: unknown, fetchedAt: number = this.now()): void {
    if (!this.store) return
    const row: StateRow = { account: account.toLowerCase(), kind, value, fetchedAt }
    if (this.flushMs <= 0) return this.write([row])
    const key = `${row.account}|${kind}`
    const held = this.pending.get(key)
    // Like the store's upsert: an older answer arriving late never replaces a newer one.
    if (held && held.fetchedAt > fetchedAt) return
    this.pending.set(key, row)
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.flushMs)
      this.timer.unref?.()
    }
  }

  load<T>(account: string, kind: AccountStateKind): Known<T> | null {
    const held = this.pending.get(`${account.toLowerCase()}|${kind}`)
    if (held) return this.known(held.value as T, held.fetchedAt)
    if (!this.store) return null
    try {
      const c = this.store.getState<T>(this.network, account.toLowerCase(), kind)
      return c ? this.known(c.value, c.fetchedAt) : null
    } catch {
      return null
    }
  }

  /** Every cached entry of the network, grouped by account then kind (start-up hydration). */
  all(): Map<string, Map<string, Known<unknown>>> {
    const out = new Map<string, Map<string, Known<unknown>>>()
    if (!this.store) return out
    let rows: { account: string; kind: string; value: unknown; fetchedAt: number }[]
    try {
      rows = this.store.allStates(this.network)
    } catch {
      return out
    }
    for (const r of [...rows, ...this.pending.values()]) {
      let m = out.get(r.account)
      if (!m) out.set(r.account, (m = new Map()))
      m.set(r.kind, this.known(r.value, r.fetchedAt))
    }
    return out
  }

  /** Stores what is held (one transaction). The session calls it on close; the timer otherwise. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (this.pending.size === 0) return
    const rows = [...this.pending.values()]
    this.pending.clear()
    this.write(rows)
  }

  private write(rows: StateRow[]): void {
    const store = this.store
    if (!store) return
    try {
      if (store.putStates) store.putStates(this.network, rows)
      else for (const r of rows) store.putState(this.network, r.account, r.kind, r.value, r.fetchedAt)
    } catch {
      // e.g. the journal is closing during shutdown; the next fetch writes again.
    }
  }

  private known<T>(value: T, fetchedAt: number): Known<T> {
    return { value, fetchedAt, ageMs: Math.max(0, this.now() - fetchedAt) }
  }
}
