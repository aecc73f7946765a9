import type Database from 'better-sqlite3'
import { DeskError } from '../errors/desk-error'
import type { CreditSample } from './types'

const ATOMS = /^-?(0|[1-9][0-9]*)$/

function checkAtoms(v: string | null, field: string): string | null {
  if (v !== null && !ATOMS.test(v))
    throw new DeskError('InvalidCreditSample', `${field} must be an integer usd_atoms string or null`, { field })
  return v
}

/** Time series of an account's credit-health figures, for charts. */
export class CreditHistory {
  constructor(private readonly db: Database.Database) {}

  append(network: string, account: string, s: CreditSample): void {
    if (!Number.isSafeInteger(s.at) || s.at < 0) throw new DeskError('InvalidCreditSample', 'at must be Unix milliseconds', { field: 'at' })
    this.db
      .prepare(
        `INSERT INTO credit_samples (network, account, at, status, credit_usd_atoms, available_usd_atoms, last_known_usd_atoms, level, detail)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        network,
        account.toLowerCase(),
        s.at,
        s.status,
        checkAtoms(s.creditUsdAtoms, 'creditUsdAtoms'),
        checkAtoms(s.availableUsdAtoms, 'availableUsdAtoms'),
        checkAtoms(s.lastKnownAvailableUsdAtoms, 'lastKnownAvailableUsdAtoms'),
        s.level,
        s.detail === undefined ? null : JSON.stringify(s.detail),
      )
  }

  /** Samples at or after `since` (ms), oldest first, at most `limit` (newest kept when capped). */
  since(network: string, account: string, since: number, limit = 10_000): CreditSample[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM (SELECT * FROM credit_samples WHERE network = ? AND account = ? AND at >= ? ORDER BY at DESC, id DESC LIMIT ?) ORDER BY at ASC, id ASC`,
      )
      .all(network, account.toLowerCase(), since, limit) as {
      at: number
      status: string | null
      credit_usd_atoms: string | null
      available_usd_atoms: string | null
      last_known_usd_atoms: string | null
      level: string | null
      detail: string | null
    }[]
    return rows.map((r) => {
      const out: CreditSample = {
        at: r.at,
        status: r.status,
        creditUsdAtoms: r.credit_usd_atoms,
        availableUsdAtoms: r.available_usd_atoms,
        lastKnownAvailableUsdAtoms: r.last_known_usd_atoms,
        level: r.level,
      }
      if (r.detail !== null) out.detail = JSON.parse(r.detail) as unknown
      return out
    })
  }

  /** Drops samples older than `before` (ms); returns how many were removed. */
  prune(before: number): number {
    return this.db.prepare(`DELETE FROM credit_samples WHERE at < ?`).run(before).changes
  }
}
