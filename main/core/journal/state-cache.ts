import type Database from 'better-sqlite3'
import { DeskError } from '../errors/desk-error'
import type { AccountStateKind, CachedState } from './types'

/** An older answer arriving late never replaces a newer one. */
const UPSERT = `INSERT INTO account_state (network, account, kind, json, fetched_at) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (network, account, kind) DO UPDATE SET json = excluded.json, fetched_at = excluded.fetched_at
  WHERE excluded.fetched_at >= account_state.fetched_at`

/**
 * Last known account state (balances, credit, agents, earn...) per (network, account, kind),
 * kept so the dashboard can show it at start, with its age, before the network answers.
 * Values are stored as JSON text; callers keep amounts as strings so nothing loses precision.
 */
export class StateCache {
  constructor(
    private readonly db: Database.Database,
    private readonly now: () => number,
  ) {}

  put(network: string, account: string, kind: AccountStateKind, value: unknown, fetchedAt: number = this.now()): void {
    let json: string | undefined
    try {
      json = JSON.stringify(value)
    } catch {
      json = undefined
    }
    if (json === undefined)
      throw new DeskError('InvalidStateValue', `state "${kind}" for ${account} is not JSON-serialisable (bigints must be strings)`, {
        kind,
      })
    this.db.prepare(UPSERT).run(network, account.toLowerCase(), kind, json, fetchedAt)
  }

  /**
   * Several values in one transaction (one disk sync for the lot); a value that is not JSON is
   * skipped (as `put` refuses it), never the whole batch.
   */
  putMany(network: string, rows: readonly { account: string; kind: AccountStateKind; value: unknown; fetchedAt: number }[]): void {
    const stmt = this.db.prepare(UPSERT)
    const encoded = rows.flatMap((r) => {
      try {
        const json = JSON.stringify(r.value)
        return json === undefined ? [] : [[network, r.account.toLowerCase(), r.kind, json, r.fetchedAt] as const]
      } catch {
        return []
      }
    })
    if (encoded.length > 0) this.db.transaction(() => encoded.forEach((e) => stmt.run(...e)))()
  }

  get<T = unknown>(network: string, account: string, kind: AccountStateKind): CachedState<T> | null {
    const row = this.db
      .prepare(`SELECT * FROM account_state WHERE network = ? AND account = ? AND kind = ?`)
      .get(network, account.toLowerCase(), kind) as
      { network: string; account: string; kind: string; json: string; fetched_at: number } | undefined
    return row
      ? { network: row.network, account: row.account, kind: row.kind, value: JSON.parse(row.json) as T, fetchedAt: row.fetched_at }
      : null
  }

  /** Every cached kind of every account on a network (start-up hydration). */
  all(network: string): CachedState[] {
    const rows = this.db.prepare(`SELECT * FROM account_state WHERE network = ? ORDER BY account, kind`).all(network) as {
      network: string
      account: string
      kind: string
      json: string
      fetched_at: number
    }[]
    return rows.map((r) => ({
      network: r.network,
      account: r.account,
      kind: r.kind,
      value: JSON.parse(r.json) as unknown,
      fetchedAt: r.fetched_at,
    }))
  }

  delete(network: string, account: string, kind?: AccountStateKind): void {
    if (kind === undefined)
      this.db.prepare(`DELETE FROM account_state WHERE network = ? AND account = ?`).run(network, account.toLowerCase())
    else
      this.db.prepare(`DELETE FROM account_state WHERE network = ? AND account = ? AND kind = ?`).run(network, account.toLowerCase(), kind)
  }
}
