/**
 * The team store: one PostgreSQL database several desks share. A pg.Pool for reads and appends,
 * migrations on open, and the chain log table. The store hands out rows; it never decides whether
 * they are true (chain.ts does, on every desk).
 */
import { CustodyStore } from './custody/custody-store'
import pg from 'pg'
import { DeskError } from '../errors/desk-error'
import { toStoredRow } from './chain'
import { clientConfig, toTeamError, type TeamConnectionOptions } from './connection'
import type { EntrySignature, SignedEntry } from './entry'
import { TeamErrors } from './errors'
import { subscribeLog, type LogSubscription, type LogSubscriber } from './listen'
import type { LogEntryRow } from './log-row'
import { migrate } from './migrations'

export type { LogEntryRow }

interface LogRow {
  seq: string
  prev: string
  kind: string
  payload: string
  digest: string
  signatures: string
  created_at: Date
}

const toRow = (r: LogRow): LogEntryRow => ({
  seq: BigInt(r.seq),
  prev: r.prev,
  kind: r.kind,
  payload: r.payload,
  digest: r.digest,
  signatures: r.signatures,
  createdAt: r.created_at,
})

const SELECT_LOG = 'SELECT seq::text, prev, kind, payload, digest, signatures, created_at FROM team_log'
const INSERT_LOG = 'INSERT INTO team_log (seq, prev, kind, payload, digest, signatures) VALUES ($1, $2, $3, $4, $5, $6)'

/** A seq another desk took first is a TeamChainConflict (re-read and retry); anything else is kept. */
function conflictOrSelf(e: unknown): unknown {
  const cause = e instanceof DeskError ? e.details?.cause : (e as { code?: unknown })?.code
  if (cause === '23505') return new DeskError(TeamErrors.conflict, 'another desk appended at that seq first; re-read the chain', {})
  return e
}

async function readRowsOn(c: pg.ClientBase, seqs: readonly bigint[]): Promise<LogEntryRow[]> {
  if (seqs.length === 0) return []
  const { rows } = await c.query<LogRow>(`${SELECT_LOG} WHERE team_log.seq = ANY($1::bigint[]) ORDER BY team_log.seq`, [
    seqs.map((x) => x.toString()),
  ])
  return rows.map(toRow)
}

export interface LeaseRow {
  holder: string | null
  expiresAt: Date | null
  /** held and not yet expired (server clock) */
  live: boolean
}

/** What a desk may do while it holds a proposal's lease row (one transaction). */
export interface LeaseTx {
  readLog(fromSeq: bigint): Promise<LogEntryRow[]>
  /** The rows at these seqs as stored now (missing ones left out), in seq order. */
  readRows(seqs: readonly bigint[]): Promise<LogEntryRow[]>
  append(entry: SignedEntry): Promise<void>
  /** this desk holds the lease for `ms` from now (server clock) */
  take(holder: string, ms: number): Promise<void>
}

/** A roster or policy change collecting its admin quorum (id: its change digest). */
export interface PendingChange {
  id: string
  kind: string
  payload: string
}

/** A stored signature list, shape-checked only (whose and whether it verifies is the caller's check). */
function parseSignatureList(text: string): EntrySignature[] {
  let list: unknown
  try {
    list = JSON.parse(text)
  } catch {
    return []
  }
  if (!Array.isArray(list)) return []
  return list.flatMap((e: unknown) => {
    const { signer, signature } = (e ?? {}) as { signer?: unknown; signature?: unknown }
    return typeof signer === 'string' && typeof signature === 'string'
      ? [{ signer: signer.toLowerCase() as EntrySignature['signer'], signature: signature as EntrySignature['signature'] }]
      : []
  })
}

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
    // A new client is handed out with no error listener of the pool's: a server shutting down (57P01)
    // can report in the same read as the connection's readiness, before the caller adds its own.
    // Every client keeps a no-op listener for its life; its failed queries still report typed.
    pool.on('connect', (client) => client.on('error', () => {}))
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
    // A checked-out client whose server goes away between queries (a lease transaction waiting on a
    // signature) emits 'error' with no query to fail: without a listener that would crash the process.
    // The next query on it fails and is reported typed.
    const ignore = () => {}
    try {
      client = await this.pool.connect()
      client.on('error', ignore)
      return await fn(client)
    } catch (e) {
      // A client whose connection failed is thrown away, not returned to the pool. It keeps its no-op
      // error listener: a server shutting down (57P01) may still report on it while it is ended.
      client?.release(e instanceof Error ? e : true)
      client = undefined
      throw toTeamError(e, what)
    } finally {
      client?.off('error', ignore)
      client?.release()
    }
  }

  /** Custody rows (identity keys, sealed shares, signing requests, releases): custody/custody-store.ts. */
  get custody(): CustodyStore {
    return (this.custodyRows ??= new CustodyStore((what, fn) => this.withClient(what, fn)))
  }
  private custodyRows: CustodyStore | null = null

  async migrate(): Promise<number[]> {
    return this.withClient('migrate', (c) => migrate(c))
  }

  /** Log rows with seq >= fromSeq, in seq order. */
  async readLog(fromSeq = 0n, limit?: number): Promise<LogEntryRow[]> {
    return this.withClient('read log', async (c) => {
      const { rows } = await c.query<LogRow>(
        `${SELECT_LOG} WHERE team_log.seq >= $1 ORDER BY team_log.seq${limit ? ' LIMIT $2' : ''}`,
        limit ? [fromSeq.toString(), limit] : [fromSeq.toString()],
      )
      return rows.map(toRow)
    })
  }

  /** The rows at these seqs as stored now (missing ones left out), in seq order. */
  async readRows(seqs: readonly bigint[]): Promise<LogEntryRow[]> {
    return this.withClient('read rows', (c) => readRowsOn(c, seqs))
  }

  /** Appends one entry at its seq; TeamChainConflict when another desk took that seq first. */
  async append(entry: SignedEntry): Promise<void> {
    const row = toStoredRow(entry)
    try {
      await this.withClient('append', (c) =>
        c.query(INSERT_LOG, [row.seq.toString(), row.prev, row.kind, row.payload, row.digest, row.signatures]),
      )
    } catch (e) {
      throw conflictOrSelf(e)
    }
  }

  /**
   * Runs `fn` in one transaction holding the execution lease row of `proposalId` (SELECT ... FOR
   * UPDATE): a second desk calling this for the same proposal waits until the first commits or rolls
   * back, then sees what it appended. `lease` is the row as it stood (live: not yet expired, by the
   * server's clock). Everything `fn` appends and the lease it takes commit together or not at all.
   */
  async withLease<T>(proposalId: string, fn: (tx: LeaseTx, lease: LeaseRow) => Promise<T>): Promise<T> {
    return this.withClient('execution lease', async (c) => {
      await c.query('BEGIN')
      try {
        await c.query('INSERT INTO team_leases (proposal_id) VALUES ($1) ON CONFLICT DO NOTHING', [proposalId])
        const { rows } = await c.query<{ holder: string | null; expires_at: Date | null; live: boolean | null }>(
          'SELECT holder, expires_at, expires_at > now() AS live FROM team_leases WHERE proposal_id = $1 FOR UPDATE',
          [proposalId],
        )
        const r = rows[0]!
        const tx: LeaseTx = {
          readLog: async (fromSeq) =>
            (await c.query<LogRow>(`${SELECT_LOG} WHERE team_log.seq >= $1 ORDER BY team_log.seq`, [fromSeq.toString()])).rows.map(toRow),
          readRows: (seqs) => readRowsOn(c, seqs),
          append: async (entry) => {
            const row = toStoredRow(entry)
            await c.query(INSERT_LOG, [row.seq.toString(), row.prev, row.kind, row.payload, row.digest, row.signatures])
          },
          take: async (holder, ms) => {
            await c.query(
              "UPDATE team_leases SET holder = $2, expires_at = now() + ($3::text || ' milliseconds')::interval WHERE proposal_id = $1",
              [proposalId, holder, String(ms)],
            )
          },
        }
        const out = await fn(tx, { holder: r.holder, expiresAt: r.expires_at, live: r.live === true })
        await c.query('COMMIT')
        return out
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {})
        throw conflictOrSelf(e)
      }
    })
  }

  /** Ends `holder`'s lease of `proposalId` (after the final outcome): another desk may take over at once. */
  async releaseLease(proposalId: string, holder: string): Promise<void> {
    await this.withClient('release lease', (c) =>
      c.query('UPDATE team_leases SET expires_at = now() WHERE proposal_id = $1 AND holder = $2', [proposalId, holder]),
    )
  }

  /**
   * Extends `holder`'s lease of `proposalId` by `ms` (server clock) while it still runs: a send
   * that outlives the lease keeps it. False when the lease already ran out (a takeover may be on).
   */
  async renewLease(proposalId: string, holder: string, ms: number): Promise<boolean> {
    const r = await this.withClient('renew lease', (c) =>
      c.query(
        "UPDATE team_leases SET expires_at = now() + ($3::text || ' milliseconds')::interval WHERE proposal_id = $1 AND holder = $2 AND expires_at > now()",
        [proposalId, holder, String(Math.max(1, Math.floor(ms)))],
      ),
    )
    return (r.rowCount ?? 0) > 0
  }

  /**
   * Adds one admin's signature to a change collecting its quorum (created with the first one). One
   * row lock per change: two admins signing at once both keep theirs. Returns the change's
   * signatures as stored (unverified: the caller checks each one).
   */
  async signChange(change: PendingChange, signature: EntrySignature): Promise<EntrySignature[]> {
    return this.withClient('sign change', async (c) => {
      await c.query('BEGIN')
      try {
        await c.query('INSERT INTO team_changes (id, kind, payload, signatures) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
          change.id,
          change.kind,
          change.payload,
          '[]',
        ])
        const { rows } = await c.query<{ signatures: string }>('SELECT signatures FROM team_changes WHERE id = $1 FOR UPDATE', [change.id])
        const list = parseSignatureList(rows[0]!.signatures).filter((s) => s.signer !== signature.signer)
        list.push(signature)
        await c.query('UPDATE team_changes SET signatures = $2 WHERE id = $1', [change.id, JSON.stringify(list)])
        await c.query('COMMIT')
        return list
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {})
        throw e
      }
    })
  }

  /** Changes still collecting signatures, oldest first (rows as stored: nothing in them is trusted). */
  async changes(): Promise<(PendingChange & { signatures: EntrySignature[]; createdAt: Date })[]> {
    return this.withClient('read changes', async (c) => {
      const { rows } = await c.query<{ id: string; kind: string; payload: string; signatures: string; created_at: Date }>(
        'SELECT id, kind, payload, signatures, created_at FROM team_changes ORDER BY created_at, id',
      )
      return rows.map((r) => ({
        id: r.id,
        kind: r.kind,
        payload: r.payload,
        signatures: parseSignatureList(r.signatures),
        createdAt: r.created_at,
      }))
    })
  }

  /** Forgets a change (applied, or stale: the roster or policy it was signed for has changed). */
  async dropChange(id: string): Promise<void> {
    await this.withClient('drop change', (c) => c.query('DELETE FROM team_changes WHERE id = $1', [id]))
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
