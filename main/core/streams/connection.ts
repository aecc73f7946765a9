import WebSocket from 'ws'
import type { Clock } from './clock'
import { parseFrame, type Frame } from './frames'
import { subscriptionKey, type Subscription } from './plan'

/**
 * One socket to `/ws`: subscribes its (at most 10) topics, pings every 30 s and expects a pong
 * within the deadline, and on any loss reconnects with jittered exponential backoff and
 * subscribes again. Parsed frames go to `onFrame`; a (re)opened socket is reported through
 * `onOpen` so the pool can backfill what a gap may have lost.
 */
export interface ConnectionOptions {
  url: string
  subscriptions: Subscription[]
  clock: Clock
  random?: () => number
  pingIntervalMs?: number
  pongTimeoutMs?: number
  backoffBaseMs?: number
  backoffMaxMs?: number
  onFrame: (frame: Frame) => void
  onOpen?: (info: { reconnect: boolean }) => void
  onStateChange?: () => void
  /** Malformed frames and server error texts, for the status line and the log. */
  onProblem?: (text: string) => void
}

export type ConnectionState = 'connecting' | 'open' | 'waiting' | 'stopped'

export class StreamConnection {
  private ws: WebSocket | undefined
  private readonly opts: Required<Omit<ConnectionOptions, 'onOpen' | 'onStateChange' | 'onProblem'>> & Pick<ConnectionOptions, 'onOpen' | 'onStateChange' | 'onProblem'>
  private subs: Subscription[]
  private readonly acked = new Set<string>()
  /** When the current socket opened (clock ms); null while not open. */
  openedAt: number | null = null
  private pingTimer: unknown
  private pongTimer: unknown
  private retryTimer: unknown
  private attempt = 0
  private opened = 0
  state: ConnectionState = 'stopped'
  reconnects = 0
  lastMessageAt: number | null = null
  lastProblem: string | null = null

  constructor(opts: ConnectionOptions) {
    this.opts = {
      ...opts,
      random: opts.random ?? Math.random,
      pingIntervalMs: opts.pingIntervalMs ?? 30_000,
      pongTimeoutMs: opts.pongTimeoutMs ?? 10_000,
      backoffBaseMs: opts.backoffBaseMs ?? 500,
      backoffMaxMs: opts.backoffMaxMs ?? 30_000,
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
    this.state = 'stopped'
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

  /** Drops the socket as if the network failed (tests, and a manual "reconnect now"). */
  /**
   * True when this socket is open and the server acknowledged the subscription: its snapshot
   * channel then carries every change (silence means no change), so state received since the
   * socket opened is current however old it is.
   */
  carriesLive(sub: Subscription, receivedAt: number): boolean {
    return this.state === 'open' && this.openedAt !== null && receivedAt >= this.openedAt && this.acked.has(subscriptionKey(sub))
  }

  drop(): void {
    this.ws?.terminate()
  }

  /** Replaces the topics: unsubscribes what left, subscribes what came. */
  setSubscriptions(next: Subscription[]): void {
    const before = new Map(this.subs.map((s) => [subscriptionKey(s), s]))
    const after = new Map(next.map((s) => [subscriptionKey(s), s]))
    this.subs = [...next]
    if (this.state !== 'open') return
    for (const [k, s] of before) if (!after.has(k)) this.send({ method: 'unsubscribe', subscription: { type: s.channel, user: s.user } })
    for (const [k, s] of after) if (!before.has(k)) this.send({ method: 'subscribe', subscription: { type: s.channel, user: s.user } })
    for (const k of [...this.acked]) if (!after.has(k)) this.acked.delete(k)
  }

  private connect(): void {
    this.state = 'connecting'
    this.opts.onStateChange?.()
    const ws = new WebSocket(this.opts.url, { perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 })
    this.ws = ws
    ws.on('open', () => {
      if (this.ws !== ws) return
      this.state = 'open'
      this.openedAt = this.opts.clock.now()
      this.acked.clear()
      const reconnect = this.opened > 0
      if (reconnect) this.reconnects++
      this.opened++
      for (const s of this.subs) this.send({ method: 'subscribe', subscription: { type: s.channel, user: s.user } })
      this.schedulePing()
      this.opts.onStateChange?.()
      this.opts.onOpen?.({ reconnect })
    })
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      if (this.ws !== ws) return
      this.lastMessageAt = this.opts.clock.now()
      // The backoff resets once the server talks, not on open: a server that accepts and drops
      // at once still sees growing delays (and new connections per IP stay few).
      this.attempt = 0
      const text = isBinary ? '' : data.toString()
      let frame: Frame
      try {
        frame = parseFrame(text)
      } catch (e) {
        this.problem(e instanceof Error ? e.message : 'malformed frame')
        return
      }
      if (frame.channel === 'pong') {
        if (this.pongTimer !== undefined) this.opts.clock.clearTimeout(this.pongTimer)
        this.pongTimer = undefined
        return
      }
      if (frame.channel === 'subscriptionResponse') {
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
      if (frame.channel === 'error') {
        if (!frame.data.startsWith('Already subscribed') && !frame.data.startsWith('Already unsubscribed')) this.problem(frame.data)
        return
      }
      this.opts.onFrame(frame)
    })
    ws.on('error', () => {
      // 'close' follows; the error text of a refused connection says nothing the state does not.
    })
    ws.on('close', () => {
      if (this.ws !== ws) return
      this.ws = undefined
      this.clearTimers()
      if (this.state === 'stopped') return
      this.scheduleReconnect()
    })
  }

  private problem(text: string): void {
    this.lastProblem = text
    this.opts.onProblem?.(text)
  }

  private send(msg: unknown): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg))
  }

  private schedulePing(): void {
    const { clock } = this.opts
    this.pingTimer = clock.setTimeout(() => {
      this.pingTimer = undefined
      if (this.state !== 'open') return
      this.send({ method: 'ping' })
      if (this.pongTimer === undefined) {
        this.pongTimer = clock.setTimeout(() => {
          this.pongTimer = undefined
          // A silent socket: no pong in time. Drop it; the close handler reconnects.
          this.problem('no pong within the deadline; reconnecting')
          this.ws?.terminate()
        }, this.opts.pongTimeoutMs)
      }
      this.schedulePing()
    }, this.opts.pingIntervalMs)
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
    this.retryTimer = this.opts.clock.setTimeout(() => {
      this.retryTimer = undefined
      if (this.state === 'waiting') this.connect()
    }, delay)
  }

  private clearTimers(): void {
    const { clock } = this.opts
    if (this.pingTimer !== undefined) clock.clearTimeout(this.pingTimer)
    if (this.pongTimer !== undefined) clock.clearTimeout(this.pongTimer)
    this.pingTimer = this.pongTimer = undefined
  }

  private clearRetry(): void {
    if (this.retryTimer !== undefined) this.opts.clock.clearTimeout(this.retryTimer)
    this.retryTimer = undefined
  }
}
