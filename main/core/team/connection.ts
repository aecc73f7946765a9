/**
 * From what the desk is given (a connection string, a password kept apart, TLS options) to a pg
 * client config, and from pg's failures to typed errors. The password is merged in memory only:
 * it is never written, logged or put back into a string.
 */
import pg from 'pg'
import { parseIntoClientConfig } from 'pg-connection-string'
import { DeskError } from '../errors/desk-error'
import { TeamErrors, teamBadInput } from './errors'

export interface TeamConnectionOptions {
  /** postgresql://user@host:port/db?sslmode=verify-full (sslmode honoured) */
  connectionString: string
  /** from the vault; overrides any password in the string */
  password?: string
  /** explicit TLS options (CA, client certificate); overrides sslmode */
  ssl?: pg.ClientConfig['ssl']
  /** pool size, default 5 */
  max?: number
  /** connect timeout, default 3000 ms */
  connectTimeoutMs?: number
}

export function clientConfig(o: TeamConnectionOptions): pg.ClientConfig {
  if (typeof o.connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(o.connectionString)) {
    throw teamBadInput('the team store connection string must start with postgresql://')
  }
  let base: pg.ClientConfig
  try {
    base = parseIntoClientConfig(o.connectionString)
  } catch {
    throw teamBadInput('the team store connection string cannot be parsed')
  }
  const config: pg.ClientConfig = { ...base, connectionTimeoutMillis: o.connectTimeoutMs ?? 3000, application_name: 'treasury-desk' }
  if (o.password !== undefined) config.password = o.password
  if (o.ssl !== undefined) config.ssl = o.ssl
  return config
}

// Connection-level failures: the server is down, restarting, unreachable or dropped us.
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])
const PG_CLASSES = ['08', '57P'] // connection exception; operator intervention (shutdown, cannot connect now)
// What node-postgres says when the connection itself failed (dropped, timed out, never made).
const LOST_CONNECTION =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|not queryable/i

export function isConnectionFailure(e: unknown): boolean {
  if (!(e instanceof Error)) return false
  const code = (e as { code?: unknown }).code
  if (typeof code === 'string' && (NET_CODES.has(code) || PG_CLASSES.some((c) => code.startsWith(c)))) return true
  return LOST_CONNECTION.test(e.message)
}

/** Every failure of a store call as a DeskError, without the server's text where it could echo input. */
export function toTeamError(e: unknown, what: string): DeskError {
  if (e instanceof DeskError) return e
  if (isConnectionFailure(e)) {
    const code = (e as { code?: string }).code
    return new DeskError(TeamErrors.unreachable, `team store unreachable (${what})`, code ? { cause: code } : undefined)
  }
  const code = (e as { code?: unknown })?.code
  if (code === '28P01' || code === '28000')
    return new DeskError(TeamErrors.badInput, 'the team store refused the login (user or password)', { cause: code })
  if (code === '3D000') return new DeskError(TeamErrors.badInput, 'the team database does not exist', { cause: code })
  return new DeskError(TeamErrors.storeFailed, `team store error (${what})`, typeof code === 'string' ? { cause: code } : undefined)
}
