import type WebSocket from 'ws'
import { KNOWN_CHANNELS, parseFrame, type Frame } from './frames'
import { frameText, protocolBreach } from './frame-checks'
import { resolveOptions, type ConnectionOptions, type ConnectionState, type Resolved } from './connection-options'
import { subscriptionKey, type Subscription } from './plan'
import { OPEN, type SocketLike } from './stream-socket'

export type { ConnectionOptions, ConnectionState } from './connection-options'
export type { ConnectBudget, SocketFactory, SocketLike } from './stream-socket'

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
    this.opts = resolveOptions(opts)
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
    const breach = protocolBreach(data, isBinary, this.opts.maxFrameBytes)
    if (breach) {
      // The service sends JSON text frames only, under its cap: the protocol is broken.
      this.dropped++
      const code = breach.code
      this.problem(breach.message)
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
    const text = frameText(data)
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
          ? `no pong within ${pongTimeoutMs} ms of a ping, though other frames came: the socket went silent and came back, what it sent meanwhile ` +
              `may be lost; reconnecting`
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
