/**
 * The team store: one PostgreSQL database several desks share. A pg.Pool for reads and appends,
 * migrations on open, and the chain log table. The store hands out rows; it never decides whether
 * they are true (chain.ts does, on every desk).
 */
import pg from 'pg'
import { DeskError } from '../errors/desk-error'
import { toStoredRow, type StoredRow } from './chain'
import { clientConfig, toTeamError, type TeamConnectionOptions } from './connection'
import type { SignedEntry } from './entry'
import { TeamErrors } from './errors'
import { subscribeLog, type LogSubscription, type LogSubscriber } from './listen'
import { migrate } from './migrations'

interface LogRow {
  seq: string
  prev: string
  kind: string
  payload: string
  digest: string
  signatures: string
  created_at: Date
}

export interface LogEntryRow extends StoredRow {
  createdAt: Date
}

const toRow = (r: LogRow): LogEntryRow => ({ seq: BigInt(r.seq), prev: r.prev, kind: r.kind, payload: r.payload, digest: r.digest, signatures: r.signatures, createdAt: r.created_at })

export class TeamStore {
  private closed = false

  private constructor(
    private readonly pool: pg.Pool,
    private readonly config: pg.ClientConfig,
  ) {}

  /** Connects (TeamStoreUnreachable when it cannot) and brings the schema up to date. */
  static async open(opts: TeamConnectionOptions): Promise<TeamStore> {
    const config = clientConfig(opts)
    const pool = new pg.Pool({ ...config, max: opts.max ?? 5, idleTimeoutMillis: 10_000 })
    // An idle client losing its server must not crash the process; the next query reports it.
    pool.on('error', () => {})
    const store = new TeamStore(pool, config)
    try {
      await store.withClient('migrate', (c) => migrate(c))
    } catch (e) {
      await pool.end().catch(() => {})
      throw e
    }
    return store
  }

  private async withClient<T>(what: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.closed) throw new DeskError(TeamErrors.storeFailed, 'the team store is closed')
    let client: pg.PoolClient | undefined
    try {
      client = await this.pool.connect()
      return await fn(client)
    } catch (e) {
      // A client whose connection failed is thrown away, not returned to the pool.
      client?.release(e instanceof Error ? e : true)
      client = undefined
      throw toTeamError(e, what)
    } finally {
      client?.release()
    }
  }

  async migrate(): Promise<number[]> {
    return this.withClient('migrate', (c) => migrate(c))
  }

  /** Log rows with seq >= fromSeq, in seq order. */
  async readLog(fromSeq = 0n, limit?: number): Promise<LogEntryRow[]> {
    return this.withClient('read log', async (c) => {
      const { rows } = await c.query<LogRow>(
        `SELECT seq::text, prev, kind, payload, digest, signatures, created_at FROM team_log WHERE team_log.seq >= $1 ORDER BY team_log.seq${limit ? ' LIMIT $2' : ''}`,
        limit ? [fromSeq.toString(), limit] : [fromSeq.toString()],
      )
      return rows.map(toRow)
    })
  }

  /** Appends one entry at its seq; TeamChainConflict when another desk took that seq first. */
  async append(entry: SignedEntry): Promise<void> {
    const row = toStoredRow(entry)
    try {
      await this.withClient('append', (c) =>
        c.query('INSERT INTO team_log (seq, prev, kind, payload, digest, signatures) VALUES ($1, $2, $3, $4, $5, $6)', [row.seq.toString(), row.prev, row.kind, row.payload, row.digest, row.signatures]),
      )
    } catch (e) {
      if (e instanceof DeskError && e.details?.cause === '23505') throw new DeskError(TeamErrors.conflict, `entry ${entry.seq} was appended by another desk first; re-read the chain`, { seq: entry.seq.toString() })
      throw e
    }
  }

  /** Pushes new log rows (after `afterSeq`) to `subscriber` over a dedicated connection. */
  subscribe(subscriber: LogSubscriber, afterSeq = -1n): LogSubscription {
    return subscribeLog(this.config, (from) => this.readLogVia(from), subscriber, afterSeq)
  }

  private readLogVia(from: bigint): Promise<LogEntryRow[]> {
    return this.readLog(from)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.pool.end().catch(() => {})
  }
}
