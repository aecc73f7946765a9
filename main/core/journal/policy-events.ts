import type Database from 'better-sqlite3'
import { DeskError } from '../errors/desk-error'
import type { PolicyEvent } from './types'

/** Append-only log of operator-policy events (audit of every rule change and override). */
export class PolicyEvents {
  constructor(
    private readonly db: Database.Database,
    private readonly now: () => number,
  ) {}

  append(network: string, kind: string, summary: string, detail: unknown): PolicyEvent {
    let json: string | undefined
    try {
      json = JSON.stringify(detail ?? null)
    } catch {
      json = undefined
    }
    if (json === undefined) throw new DeskError('InvalidPolicyEvent', `policy event "${kind}" is not JSON-serialisable`, { kind })
    const at = this.now()
    const r = this.db
      .prepare(`INSERT INTO policy_events (network, at, kind, summary, detail) VALUES (?, ?, ?, ?, ?)`)
      .run(network, at, kind, summary, json)
    return { id: Number(r.lastInsertRowid), network, at, kind, summary, detail: JSON.parse(json) as unknown }
  }

  /** Events of a network, newest first. */
  list(network: string, limit = 200): PolicyEvent[] {
    const rows = this.db.prepare(`SELECT * FROM policy_events WHERE network = ? ORDER BY id DESC LIMIT ?`).all(network, limit) as {
      id: number
      network: string
      at: number
      kind: string
      summary: string
      detail: string
    }[]
    return rows.map((r) => ({
      id: r.id,
      network: r.network,
      at: r.at,
      kind: r.kind,
      summary: r.summary,
      detail: JSON.parse(r.detail) as unknown,
    }))
  }
}
