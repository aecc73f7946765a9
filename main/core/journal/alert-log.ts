import type Database from 'better-sqlite3'

/** One recorded alert (features/alerts decides what is an alert; this only keeps them). */
export interface AlertRecord {
  id: number
  network: string
  kind: string
  level: string
  title: string
  message: string
  account: string | null
  at: number
  desktopSuppressed: boolean
  acknowledgedAt: number | null
}

export type NewAlert = Omit<AlertRecord, 'id' | 'acknowledgedAt'>

interface Row {
  id: number
  network: string
  kind: string
  level: string
  title: string
  message: string
  account: string | null
  at: number
  desktop_suppressed: number
  acknowledged_at: number | null
}

const toRecord = (r: Row): AlertRecord => ({
  id: r.id,
  network: r.network,
  kind: r.kind,
  level: r.level,
  title: r.title,
  message: r.message,
  account: r.account,
  at: r.at,
  desktopSuppressed: r.desktop_suppressed === 1,
  acknowledgedAt: r.acknowledged_at,
})

/**
 * The alert log (bounded: the newest `cap` alerts are kept), the alert settings (one JSON row)
 * and a small key/value state per network that alert rules keep across restarts. A rule fires
 * once per key: `fire` inserts the `fired:<key>` state and the alert in one transaction, and
 * does nothing when the key was already fired, so evaluation can run as often as it likes.
 */
export class AlertLog {
  /**
   * Rule state set since the last flush, by network and key (null: delete). A pass over 200
   * accounts sets a few keys each; stored row by row, every one was a disk sync (the journal
   * syncs each commit) and the event loop stalled for seconds. They are stored together, in one
   * transaction, on the next turn of the event loop (or before anything reads the table).
   */
  private readonly pending = new Map<string, { network: string; key: string; value: string | null; at: number }>()
  private flushing: ReturnType<typeof setImmediate> | null = null

  constructor(
    private readonly db: Database.Database,
    private readonly now: () => number,
    private readonly cap = 500,
  ) {}

  /** Stores the pending rule state now (one transaction); a closed database drops it (a cache of checks, re-derived on the next pass). */
  flush(): void {
    if (this.flushing) clearImmediate(this.flushing)
    this.flushing = null
    if (this.pending.size === 0) return
    const rows = [...this.pending.values()]
    this.pending.clear()
    if (!this.db.open) return
    const del = this.db.prepare(`DELETE FROM alert_state WHERE network = ? AND key = ?`)
    const put = this.db.prepare(
      `INSERT INTO alert_state (network, key, value, at) VALUES (?, ?, ?, ?) ON CONFLICT (network, key) DO UPDATE SET value = excluded.value, at = excluded.at`,
    )
    this.db.transaction(() => {
      for (const r of rows) {
        if (r.value === null) del.run(r.network, r.key)
        else put.run(r.network, r.key, r.value, r.at)
      }
    })()
  }

  /** Records the alert unless `key` already fired on this network; returns it, or null when it had fired. */
  fire(key: string, a: NewAlert): AlertRecord | null {
    this.flush()
    return this.db.transaction((): AlertRecord | null => {
      const ins = this.db
        .prepare(`INSERT OR IGNORE INTO alert_state (network, key, value, at) VALUES (?, ?, '1', ?)`)
        .run(a.network, `fired:${key}`, a.at)
      if (ins.changes === 0) return null
      const r = this.db
        .prepare(
          `INSERT INTO alerts (network, kind, level, title, message, account, at, desktop_suppressed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(a.network, a.kind, a.level, a.title, a.message, a.account, a.at, a.desktopSuppressed ? 1 : 0)
      const id = Number(r.lastInsertRowid)
      this.db.prepare(`DELETE FROM alerts WHERE id <= ?`).run(id - this.cap)
      return { ...a, id, acknowledgedAt: null }
    })()
  }

  /** Newest first. */
  list(opts: { sinceMs?: number; limit?: number } = {}): AlertRecord[] {
    const rows = this.db
      .prepare(`SELECT * FROM alerts WHERE at >= ? ORDER BY id DESC LIMIT ?`)
      .all(opts.sinceMs ?? 0, Math.min(opts.limit ?? this.cap, this.cap)) as Row[]
    return rows.map(toRecord)
  }

  get(id: number): AlertRecord | null {
    const r = this.db.prepare(`SELECT * FROM alerts WHERE id = ?`).get(id) as Row | undefined
    return r ? toRecord(r) : null
  }

  acknowledge(id: number): AlertRecord | null {
    this.db.prepare(`UPDATE alerts SET acknowledged_at = ? WHERE id = ? AND acknowledged_at IS NULL`).run(this.now(), id)
    return this.get(id)
  }

  getState(network: string, key: string): string | null {
    const held = this.pending.get(`${network}\u0000${key}`)
    if (held) return held.value
    const r = this.db.prepare(`SELECT value FROM alert_state WHERE network = ? AND key = ?`).get(network, key) as
      { value: string } | undefined
    return r ? r.value : null
  }

  setState(network: string, key: string, value: string | null): void {
    this.pending.set(`${network}\u0000${key}`, { network, key, value, at: this.now() })
    this.flushing ??= setImmediate(() => this.flush())
  }

  /** Forgets fired keys older than `beforeMs` (the log itself is bounded by count). */
  pruneFired(beforeMs: number): number {
    this.flush()
    return this.db.prepare(`DELETE FROM alert_state WHERE key LIKE 'fired:%' AND at < ?`).run(beforeMs).changes
  }

  settingsJson(): string | null {
    const r = this.db.prepare(`SELECT json FROM alert_settings WHERE id = 1`).get() as { json: string } | undefined
    return r ? r.json : null
  }

  saveSettingsJson(json: string): void {
    this.db
      .prepare(
        `INSERT INTO alert_settings (id, json, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET json = excluded.json, updated_at = ` +
          `excluded.updated_at`,
      )
      .run(json, this.now())
  }
}
