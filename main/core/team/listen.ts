/**
 * Push of new chain entries: a dedicated connection LISTENs on the log channel; each notification
 * (and each reconnection) reads every row after the last one delivered, so rows arrive in order,
 * once, and none is lost while the database was away. No polling loop: reads happen on a
 * notification, on (re)connect, and on a retry after a failed read. The same connection LISTENs for
 * the admin changes collecting signatures: each of their notifications (and each (re)connection,
 * which may have missed some) tells the subscriber to re-read them.
 */
import pg from 'pg'
import type { DeskError } from '../errors/desk-error'
import { toTeamError } from './connection'
import { CHANGES_CHANNEL, CUSTODY_CHANNEL, NOTIFY_CHANNEL } from './migrations'
import type { LogEntryRow } from './log-row'

export type LinkStatus = 'live' | 'unreachable'

export interface LogSubscriber {
  onEntries(rows: LogEntryRow[]): void
  /** An admin change was made, signed, applied or dropped (or the link is back: any may have been). */
  onChanges?(): void
  /** A custody signing request or share release was stored (`request:<id>` / `release:<request id>`), or the link is back (null). */
  onCustody?(what: string | null): void
  onStatus?(status: LinkStatus, error?: DeskError): void
}

export interface LogSubscription {
  /** Resolves once the first LISTEN is active and rows already there were delivered. */
  ready: Promise<void>
  close(): Promise<void>
}

const MIN_BACKOFF_MS = 100
const MAX_BACKOFF_MS = 1000

export function subscribeLog(
  config: pg.ClientConfig,
  read: (fromSeq: bigint) => Promise<LogEntryRow[]>,
  sub: LogSubscriber,
  afterSeq: bigint,
): LogSubscription {
  let last = afterSeq
  let client: pg.Client | null = null
  let closed = false
  let status: LinkStatus | null = null
  let backoff = MIN_BACKOFF_MS
  // Separate timers: a pending read retry must never swallow a reconnection (or the reverse).
  const timers: { connect: NodeJS.Timeout | null; pull: NodeJS.Timeout | null } = { connect: null, pull: null }
  let pulling = false
  let again = false
  let markReady: () => void = () => {}
  const ready = new Promise<void>((r) => (markReady = r))

  const setStatus = (s: LinkStatus, e?: DeskError) => {
    if (s === status) return
    status = s
    sub.onStatus?.(s, e)
  }
  const later = (which: 'connect' | 'pull', fn: () => void) => {
    if (closed || timers[which]) return
    timers[which] = setTimeout(() => {
      timers[which] = null
      fn()
    }, backoff)
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2)
  }

  const pull = async (): Promise<void> => {
    if (pulling) {
      again = true
      return
    }
    pulling = true
    try {
      do {
        again = false
        const rows = await read(last + 1n)
        if (closed) return
        if (rows.length) {
          last = rows[rows.length - 1]!.seq
          sub.onEntries(rows)
        }
      } while (again && !closed)
    } catch {
      // The listening connection will notice too; meanwhile retry the read.
      later('pull', () => void pull())
    } finally {
      pulling = false
    }
  }

  const lost = (c: pg.Client, e?: unknown) => {
    if (client !== c) return
    client = null
    c.removeAllListeners('notification')
    c.end().catch(() => {})
    setStatus('unreachable', toTeamError(e ?? new Error('Connection ended'), 'listen'))
    later('connect', () => void connect())
  }

  const connect = async (): Promise<void> => {
    if (closed) return
    const c = new pg.Client(config)
    c.on('error', (e) => lost(c, e))
    c.on('end', () => lost(c))
    try {
      await c.connect()
      await c.query(`LISTEN ${NOTIFY_CHANNEL}`)
      if (sub.onChanges) await c.query(`LISTEN ${CHANGES_CHANNEL}`)
      if (sub.onCustody) await c.query(`LISTEN ${CUSTODY_CHANNEL}`)
    } catch (e) {
      c.removeAllListeners()
      c.on('error', () => {})
      c.end().catch(() => {})
      setStatus('unreachable', toTeamError(e, 'listen'))
      later('connect', () => void connect())
      return
    }
    if (closed) {
      await c.end().catch(() => {})
      return
    }
    client = c
    backoff = MIN_BACKOFF_MS
    c.on('notification', (n) => {
      if (n.channel === CHANGES_CHANNEL) sub.onChanges?.()
      else if (n.channel === CUSTODY_CHANNEL) sub.onCustody?.(n.payload ?? null)
      else void pull()
    })
    setStatus('live')
    await pull()
    sub.onChanges?.()
    sub.onCustody?.(null)
    markReady()
  }

  void connect()
  return {
    ready,
    async close() {
      closed = true
      for (const t of Object.values(timers)) if (t) clearTimeout(t)
      const c = client
      client = null
      if (c) {
        c.removeAllListeners()
        c.on('error', () => {})
        await c.end().catch(() => {})
      }
    },
  }
}
