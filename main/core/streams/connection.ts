import { isUtf8 } from 'node:buffer'
import WebSocket from 'ws'
import type { Clock } from './clock'
import { KNOWN_CHANNELS, parseFrame, type Frame } from './frames'
import { subscriptionKey, type Subscription } from './plan'

/**
 * What the connection needs of a socket: the `ws` client, or a fake in tests. Events used:
 * open, message (data, isBinary), error, close.
 */
export interface SocketLike {
  readonly readyState: number
  on(event: 'open', fn: () => void): unknown
  on(event: 'message', fn: (data: WebSocket.RawData | string, isBinary: boolean) => void): unknown
  on(event: 'error', fn: (err: Error) => void): unknown
  on(event: 'close', fn: (code: number, reason: Buffer) => void): unknown
  send(data: string, cb?: (err?: Error) => void): void
  close(code?: number, reason?: string): void
  terminate(): void
  removeAllListeners(): unknown
}

export type SocketFactory = (url: string, opts: { maxPayload: number }) => SocketLike

const OPEN = 1

const defaultSocket: SocketFactory = (url, { maxPayload }) =>
  // ws checks UTF-8 of text frames and the size cap itself: a breach emits 'error', then 'close'.
  new WebSocket(url, { perMessageDeflate: false, maxPayload }) as unknown as SocketLike

/** Shared by a pool's connections: spaces new connections (the service counts 30 per minute per IP). */
export interface ConnectBudget {
  /** ms to wait before the next connection attempt is allowed (0 = now) */
  delayMs(now: number): number
  record(now: number): void
}

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
type Resolved = Required<Omit<ConnectionOptions, Optional>> & Pick<ConnectionOptions, Optional>

export class StreamConnection {
  private ws: SocketLike | undefined
  private readonly opts: Resolved
  private subs: Subscription[]
  private readonly acked = new Set<string>()
  /** When the current socket opened (clock ms); null while not open. */
  openedAt: number | null = null
  private watchTimer: unknown
  private pongTimer: unknown
  private retryTimer: unknown
  private lastOutboundAt = 0
  private lastInboundAt = 0
  /** Frames received on the current socket (a missed pong with frames since means a silence that ended). */
  private inbound = 0
  /** Subscribes went out while a ping was waiting: probe again once it is answered. */
  private probeAgain = false
  private attempt = 0
  private opened = 0
  /** True once a socket of this connection has been open: not open after that means dropped. */
  get hasOpened(): boolean {
    return this.opened > 0
  }
  state: ConnectionState = 'stopped'
  reconnects = 0
  lastMessageAt: number | null = null
  lastProblem: string | null = null
  /** Frames dropped as garbage since start. */
  dropped = 0

  constructor(opts: ConnectionOptions) {
    this.opts = {
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
    this.subs = [...opts.subscriptions]
  }

  get subscriptions(): readonly Subscription[] {
    return this.subs
  }

  acknowledged(): number {
    return this.acked.size
  }

  start(): void {
    if (this.state !== 'stopped') return
    this.connect()
  }

  stop(): void {
    this.endLive(this.subs)
    this.state = 'stopped'
    this.openedAt = null
    this.clearTimers()
    this.clearRetry()
    const ws = this.ws
    this.ws = undefined
    if (ws) {
      ws.removeAllListeners()
      ws.on('error', () => {})
      ws.terminate()
    }
    this.opts.onStateChange?.()
  }

  /**
   * True when this socket is open and the server acknowledged the subscription: its snapshot
   * channel then carries every change (silence means no change), so state received since the
   * socket opened is current however old it is.
   */
  carriesLive(sub: Subscription, receivedAt: number): boolean {
    return this.state === 'open' && this.openedAt !== null && receivedAt >= this.openedAt && this.acked.has(subscriptionKey(sub))
  }

  /** Tells the owner which of `subs` were live here until now (open socket, acknowledged). */
  private endLive(subs: readonly Subscription[]): void {
    if (!this.opts.onLiveEnd || this.state !== 'open' || this.openedAt === null) return
    const ended = subs.filter((s) => this.acked.has(subscriptionKey(s)))
    if (ended.length > 0) this.opts.onLiveEnd(ended, this.opts.clock.now())
  }

  /** Drops the socket as if the network failed (tests, and a manual "reconnect now"). */
  drop(): void {
    this.ws?.terminate()
  }

  /** Replaces the topics: unsubscribes what left, subscribes what came. */
  setSubscriptions(next: Subscription[]): void {
    const before = new Map(this.subs.map((s) => [subscriptionKey(s), s]))
    const after = new Map(next.map((s) => [subscriptionKey(s), s]))
    this.subs = [...next]
    if (this.state !== 'open') return
    this.endLive([...before].filter(([k]) => !after.has(k)).map(([, s]) => s))
    for (const [k, s] of before) if (!after.has(k)) this.send({ method: 'unsubscribe', subscription: { type: s.channel, user: s.user } })
    let added = false
    for (const [k, s] of after)
      if (!before.has(k)) {
        this.send({ method: 'subscribe', subscription: { type: s.channel, user: s.user } })
        added = true
      }
    for (const k of [...this.acked]) if (!after.has(k)) this.acked.delete(k)
    // The new topics' acknowledgements and snapshots must be proven delivered, as after an open.
    if (added) {
      if (this.pongTimer === undefined) this.probe()
      else this.probeAgain = true
    }
  }

  private connect(): void {
    const { clock } = this.opts
    const wait = this.opts.connectBudget?.delayMs(clock.now()) ?? 0
    if (wait > 0) {
      // Over the new-connections budget: wait for it rather than hammer the service.
      this.state = 'waiting'
      this.retryTimer = clock.setTimeout(() => {
        this.retryTimer = undefined
        if (this.state === 'waiting') this.connect()
      }, wait)
      return
    }
    this.opts.connectBudget?.record(clock.now())
    this.state = 'connecting'
    this.opts.onStateChange?.()
    let ws: SocketLike
    try {
      ws = this.opts.createSocket(this.opts.url, { maxPayload: this.opts.maxFrameBytes })
    } catch (e) {
      // A malformed URL throws synchronously: report it and retry like any failure.
      this.problem(`cannot open the stream socket: ${e instanceof Error ? e.message : String(e)}`)
      this.scheduleReconnect()
      return
    }
    this.ws = ws
    ws.on('open', () => {
      if (this.ws !== ws) return
      this.state = 'open'
      this.openedAt = clock.now()
      this.lastInboundAt = this.lastOutboundAt = this.openedAt
      this.inbound = 0
      this.probeAgain = false
      this.acked.clear()
      const reconnect = this.opened > 0
      if (reconnect) this.reconnects++
      this.opened++
      for (const s of this.subs) this.send({ method: 'subscribe', subscription: { type: s.channel, user: s.user } })
      // Its pong, sent after the acknowledgements and snapshots, proves none of them was lost: a
      // socket opened while the service is mute is replaced even if it speaks again soon after.
      this.probe()
      this.scheduleWatch()
      this.opts.onStateChange?.()
      this.opts.onOpen?.({ reconnect })
    })
    ws.on('message', (data, isBinary) => {
      if (this.ws !== ws) return
      try {
        this.onMessage(ws, data, isBinary)
      } catch (e) {
        // Never let a consumer's exception escape into the socket's event loop.
        this.problem(`stream frame handler failed: ${e instanceof Error ? e.message : String(e)}`)
      }
    })
    ws.on('error', (err: Error) => {
      // Refused connection, invalid UTF-8, oversized frame, protocol error: one line; 'close' follows.
      if (this.ws === ws) this.problem(`stream socket error: ${err.message}`)
    })
    ws.on('close', () => {
      if (this.ws !== ws) return
      this.endLive(this.subs)
      this.interrupted()
      this.ws = undefined
      this.openedAt = null
      this.clearTimers()
      if (this.state === 'stopped') return
      this.scheduleReconnect()
    })
  }

  private onMessage(ws: SocketLike, data: WebSocket.RawData | string, isBinary: boolean): void {
    const now = this.opts.clock.now()
    this.lastMessageAt = this.lastInboundAt = now
    this.inbound++
    const size = typeof data === 'string' ? data.length : Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength
    // ws checks UTF-8 itself; checked again here for any other socket (cheap, native).
    const badText = !isBinary && Buffer.isBuffer(data) && !isUtf8(data)
    if (isBinary || size > this.opts.maxFrameBytes || badText) {
      // The service sends JSON text frames only, under its cap: the protocol is broken.
      this.dropped++
      const code = isBinary ? 1003 : badText ? 1007 : 1009
      this.problem(
        isBinary
          ? 'binary frame on the stream; reconnecting'
          : badText
            ? 'stream frame is not valid UTF-8; reconnecting'
            : `stream frame of ${size} bytes over the ${this.opts.maxFrameBytes}-byte cap; reconnecting`,
      )
      // Detach first, then close: this socket's late events no longer reach us.
      this.interrupted()
      this.ws = undefined
      this.openedAt = null
      this.clearTimers()
      ws.removeAllListeners()
      ws.on('error', () => {})
      ws.close(code, 'protocol violation')
      // A close that never completes (dead peer) must not hold the socket: terminate soon after.
      this.opts.clock.setTimeout(() => ws.terminate(), 1000)
      if (this.state !== 'stopped') this.scheduleReconnect()
      return
    }
    // The backoff resets once the server talks, not on open: a server that accepts and drops
    // at once still sees growing delays (and new connections per IP stay few).
    this.attempt = 0
    const text =
      typeof data === 'string'
        ? data
        : Array.isArray(data)
          ? Buffer.concat(data).toString('utf8')
          : Buffer.from(data as ArrayBuffer).toString('utf8')
    if (this.opts.onText?.(text)) return
    let frame: Frame
    try {
      frame = parseFrame(text)
    } catch (e) {
      this.dropped++
      this.problem(`dropped stream frame: ${e instanceof Error ? e.message : 'malformed'}`)
      return
    }
    switch (frame.channel) {
      case 'pong':
        // Only the pong answers a ping: frames before it were sent before the ping was read.
        if (this.pongTimer !== undefined) {
          this.opts.clock.clearTimeout(this.pongTimer)
          this.pongTimer = undefined
          if (this.probeAgain) {
            this.probeAgain = false
            this.probe()
          }
          // The watch was put off until the deadline: the next probe is due a silence from now.
          this.scheduleWatch()
        }
        return
      case 'subscriptionResponse': {
        const sub = (frame.data as { subscription?: { type?: unknown; user?: unknown } } | null)?.subscription
        const method = (frame.data as { method?: unknown } | null)?.method
        if (sub && typeof sub.type === 'string' && typeof sub.user === 'string') {
          const k = `${sub.type}:${sub.user.toLowerCase()}`
          if (method === 'unsubscribe') this.acked.delete(k)
          else this.acked.add(k)
        }
        this.opts.onStateChange?.()
        return
      }
      case 'error':
        if (!frame.data.startsWith('Already subscribed') && !frame.data.startsWith('Already unsubscribed')) this.problem(frame.data)
        return
      case 'other':
        if (!KNOWN_CHANNELS.has(frame.name)) {
          this.dropped++
          this.problem(`dropped stream frame of unknown channel ${JSON.stringify(frame.name.slice(0, 40))}`)
          return
        }
        break
    }
    this.opts.onFrame(frame, text)
  }

  /** Tells the owner an open socket is lost without being asked to stop (see `onInterrupted`). */
  private interrupted(): void {
    if (this.openedAt !== null && this.state !== 'stopped') this.opts.onInterrupted?.([...this.subs])
  }

  /**
   * A ping that must be answered by its pong within `pongTimeoutMs`, else the socket is replaced.
   * The deadline is armed before the send, so an answer within the send (a test double) finds it.
   */
  private probe(): void {
    const { clock, pongTimeoutMs } = this.opts
    const inboundBefore = this.inbound
    this.pongTimer = clock.setTimeout(() => {
      this.pongTimer = undefined
      this.probeAgain = false
      this.problem(
        this.inbound > inboundBefore
          ? `no pong within ${pongTimeoutMs} ms of a ping, though other frames came: the socket went silent and came back, what it sent meanwhile may be lost; reconnecting`
          : `no pong within ${pongTimeoutMs} ms of a ping on a silent socket; reconnecting`,
      )
      // The close handler reports the interruption and reconnects.
      this.ws?.terminate()
    }, pongTimeoutMs)
    this.send({ method: 'ping' })
  }

  private problem(text: string): void {
    this.lastProblem = text
    this.opts.onProblem?.(text)
  }

  private send(msg: unknown): void {
    const ws = this.ws
    if (ws?.readyState !== OPEN) return
    this.lastOutboundAt = this.opts.clock.now()
    // A send racing a close reports through the callback; the close handler reconnects.
    ws.send(JSON.stringify(msg), () => {})
  }

  /**
   * One timer for both ping reasons. It does not move on every frame: when it fires it
   * re-arms for the next due time, so a busy socket costs no timer churn.
   */
  private scheduleWatch(): void {
    const { clock, silenceMs, pingIntervalMs } = this.opts
    const due = Math.min(this.lastInboundAt + silenceMs, this.lastOutboundAt + pingIntervalMs)
    this.armWatch(Math.max(0, due - clock.now()))
  }

  /** One watch timer at a time (a pong may reschedule it from within a probe). */
  private armWatch(ms: number): void {
    if (this.watchTimer !== undefined) this.opts.clock.clearTimeout(this.watchTimer)
    this.watchTimer = this.opts.clock.setTimeout(() => this.watch(), ms)
  }

  private watch(): void {
    this.watchTimer = undefined
    if (this.state !== 'open') return
    const { clock, silenceMs, pingIntervalMs } = this.opts
    const now = clock.now()
    const quietIn = now - this.lastInboundAt >= silenceMs
    const quietOut = now - this.lastOutboundAt >= pingIntervalMs
    if ((quietIn || quietOut) && this.pongTimer === undefined) this.probe()
    // While a probe is out, look again when it is answered or expires (the pong timer decides).
    if (this.pongTimer !== undefined) {
      this.armWatch(this.opts.pongTimeoutMs)
      return
    }
    this.scheduleWatch()
  }

  /** Delay of the next attempt: exponential, capped, with "equal jitter" (half fixed, half random). */
  nextDelayMs(): number {
    const exp = Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** Math.min(this.attempt, 20))
    return Math.round(exp / 2 + (exp / 2) * this.opts.random())
  }

  private scheduleReconnect(): void {
    this.state = 'waiting'
    this.opts.onStateChange?.()
    const delay = this.nextDelayMs()
    this.attempt++
    this.clearRetry()
    this.retryTimer = this.opts.clock.setTimeout(() => {
      this.retryTimer = undefined
      if (this.state === 'waiting') this.connect()
    }, delay)
  }

  private clearTimers(): void {
    const { clock } = this.opts
    if (this.watchTimer !== undefined) clock.clearTimeout(this.watchTimer)
    if (this.pongTimer !== undefined) clock.clearTimeout(this.pongTimer)
    this.watchTimer = this.pongTimer = undefined
  }

  private clearRetry(): void {
    if (this.retryTimer !== undefined) this.opts.clock.clearTimeout(this.retryTimer)
    this.retryTimer = undefined
  }
}
