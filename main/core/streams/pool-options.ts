import type { InfoClient } from '../exchange/info/client'
import type { Clock } from './clock'
import type { SocketFactory } from './connection'

export interface StreamPoolOptions {
  wsUrl: string
  /** Used for backfill after a reconnect, the fills sweep, and topics that do not fit the sockets. */
  info?: InfoClient
  clock?: Clock
  random?: () => number
  /** Socket cap; undefined = the fewest that stream every wanted channel. */
  maxConnections?: number
  /** Per topic, at most `coalesceBurst` deliveries per this many ms (default 250); the rest is merged into one at the window's end. */
  coalesceMs?: number
  /** Deliveries per topic let through at once within a window (default 4: spaced changes are never held; bursts are). */
  coalesceBurst?: number
  /** Keep-alive ping period when nothing was sent (default 30 s). */
  pingIntervalMs?: number
  /** Probe a socket silent for this long (default 1 s; a shorter silence on a busy socket may go unseen) ... */
  silenceMs?: number
  /** ... and replace it when a ping's pong does not come within this (default 3 s), even if other frames did. */
  pongTimeoutMs?: number
  backoffBaseMs?: number
  backoffMaxMs?: number
  /** Inbound frames above this break the connection (default 4 MiB). */
  maxFrameBytes?: number
  /** Socket factory (tests use a fake socket). */
  createSocket?: SocketFactory
  /** One line per dropped frame or socket problem (default console.warn; at most 20 a minute). */
  log?: (line: string) => void
  /** A suspected fills gap waits this long for the late frame before asking /info (default 500 ms). */
  gapGraceMs?: number
  /** At most one gap backfill per user per this many ms (default 2 s; /info's scheduler sets the real pace). */
  gapMinIntervalMs?: number
  /** Pause between two refresh passes over the polled topics (default 5 s; the scheduler sets the real pace). */
  pollIntervalMs?: number
  /**
   * Fills sweep through /info that catches frames dropped without a disconnect, for accounts whose
   * state changed since, or whose fills a silence, a reconnect or a lost frame left unread (default 60 s; 0 = off).
   */
  reconcileIntervalMs?: number
  /**
   * Strict limits (spec §8 as if every counted limit were enforced): one socket, at most 10
   * subscriptions, the accounts that matter most stream (see `setPriority`), the rest are read
   * through /info one channel at a time, most due first. The 30 new connections a minute are
   * respected in both modes. Whether a network runs strict is decided in config (`strictLimitsFor`).
   */
  strict?: boolean
  /** Strict mode: a polled channel is read again once this old, times its channel period (default 5 s; /info's scheduler sets the real pace). */
  pollMinAgeMs?: number
  /**
   * Strict mode: a polled account's balances this old (default 45 s, under the 60 s goal) are
   * read in the `overdue` lane, ahead of the one-off background reads of a start.
   */
  pollOverdueMs?: number
  /**
   * Strict mode: at most one `overdue` read per this many ms (default 1250: about 4 reads in 5 at
   * 1 request/s), so the background lane keeps a share when every balance is overdue (a desk with
   * more polled accounts than /info can read within the bound).
   */
  pollOverdueSpacingMs?: number
}

/** Contract `StreamStatus`, plus the plan's note. */
export interface PoolStatus {
  connected: boolean
  connections: number
  subscriptions: number
  lastMessageAt: number | null
  reconnects: number
  detail: string
  /** The spec's counted connections per IP (1); `connections` above it is flagged in `detail`. */
  connectionLimit: number
  /** Sockets needed to stream every wanted channel (10 subscriptions each). */
  neededConnections: number
  /** Connection attempts in the last minute, against the spec's counted 30 per minute. */
  newConnectionsLastMinute: number
  newConnectionLimitPerMinute: number
  /** Frames dropped as garbage since start. */
  droppedFrames: number
  /** Fills backfills started because a gap was suspected (not counting reconnects and the sweep). */
  gapBackfills: number
  /** Strict limits in force (one connection, 10 subscriptions). */
  strict: boolean
  /** Accounts with every channel streaming. */
  liveAccounts: number
  /** The least fresh account's balances (or credit state): its address, and when its value was current (null: never read). */
  leastFreshUser: string | null
  leastFreshAt: number | null
  /** Subscriptions moved in or out of the live set since start (each backfilled through /info). */
  rotations: number
}
