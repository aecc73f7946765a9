import type { Clock } from './clock'
import type { Frame } from './frames'
import type { Subscription } from './plan'
import { defaultSocket, type ConnectBudget, type SocketFactory } from './stream-socket'

/**
 * One socket to `/ws`: subscribes its (at most 10) topics and keeps them, and on any loss
 * reconnects with jittered exponential backoff and subscribes again.
 *
 * Liveness: whenever nothing has come in for `silenceMs` it sends a ping, and after every batch
 * of subscribes (the pong comes after their acknowledgements and snapshots), and whenever
 * nothing was sent for `pingIntervalMs` (the service closes a socket after 60 s without an
 * outbound frame and asks for a ping every 30 s). Every ping must get its pong within
 * `pongTimeoutMs`, or the socket is replaced: a silent socket is so noticed after silence +
 * deadline (4 s by default). Other frames do not stand in for the pong: a socket that went
 * silent and came back before the deadline dropped what it had to send meanwhile (the pong
 * among it), so it is replaced too, and the reconnect's backfill reads what was lost. A silence
 * no ping crosses (shorter than `silenceMs` on a busy socket) cannot be told from a quiet spell.
 *
 * Garbage is dropped with one log line and never throws: a frame that is not JSON, has no or
 * an unknown channel, or has the wrong shape is dropped and the socket kept; a binary frame,
 * invalid UTF-8 or an oversized frame breaks the protocol, so the socket is closed and
 * replaced.
 */
export interface ConnectionOptions {
  url: string
  subscriptions: Subscription[]
  clock: Clock
  random?: () => number
  /** Keep-alive: ping when nothing was sent for this long (default 30 s, the spec's period). */
  pingIntervalMs?: number
  /** Silence probe: ping when nothing came in for this long (default 1 s; a silence shorter than this may go unseen). */
  silenceMs?: number
  /** A ping whose pong has not come within this drops the socket (default 3 s). */
  pongTimeoutMs?: number
  backoffBaseMs?: number
  backoffMaxMs?: number
  /** Larger inbound frames break the connection (default 4 MiB; the service splits large payloads). */
  maxFrameBytes?: number
  createSocket?: SocketFactory
  connectBudget?: ConnectBudget
  /** `text` is the frame as received (the pool indexes snapshot texts to skip exact repeats). */
  onFrame: (frame: Frame, text: string) => void
  /** Sees each text frame before it is parsed; true = fully handled (an exact repeat), do not parse. */
  onText?: (text: string) => boolean
  onOpen?: (info: { reconnect: boolean }) => void
  onStateChange?: () => void
  /**
   * Subscriptions this socket carried live until now and no longer does (they left it, or it
   * closed): what they held was current until this moment, though a quiet one sent no frame.
   */
  onLiveEnd?: (subs: Subscription[], at: number) => void
  /**
   * The socket stopped carrying `subs` without the owner asking (it closed, broke the protocol or
   * missed a pong): what the service sent them meanwhile may be lost.
   */
  onInterrupted?: (subs: Subscription[]) => void
  /** Malformed frames, socket errors and server error texts, for the status line and the log. */
  onProblem?: (text: string) => void
}

export type ConnectionState = 'connecting' | 'open' | 'waiting' | 'stopped'

type Optional = 'onOpen' | 'onStateChange' | 'onProblem' | 'connectBudget' | 'onText' | 'onLiveEnd' | 'onInterrupted'
/** The options as the connection uses them (defaults filled in). */
export type Resolved = Required<Omit<ConnectionOptions, Optional>> & Pick<ConnectionOptions, Optional>

/** The options with every default filled in. */
export function resolveOptions(opts: ConnectionOptions): Resolved {
  return {
    ...opts,
    random: opts.random ?? Math.random,
    pingIntervalMs: opts.pingIntervalMs ?? 30_000,
    silenceMs: opts.silenceMs ?? 1_000,
    pongTimeoutMs: opts.pongTimeoutMs ?? 3_000,
    backoffBaseMs: opts.backoffBaseMs ?? 500,
    backoffMaxMs: opts.backoffMaxMs ?? 30_000,
    maxFrameBytes: opts.maxFrameBytes ?? 4 * 1024 * 1024,
    createSocket: opts.createSocket ?? defaultSocket,
  }
}
