import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, WebSocket } from 'ws'

/**
 * A small stand-in for the trading service used by the stream tests: a `/ws` socket that
 * acknowledges subscriptions (10 per connection), answers pings unless silenced, pushes frames
 * to subscribers, and an `/info` route answered by a test-supplied handler.
 */
export class MockExchange {
  private server: Server
  private wss: WebSocketServer
  readonly sockets = new Set<{ ws: WebSocket; subs: Set<string> }>()
  silent = false
  infoHandler: (body: Record<string, unknown>) => unknown = () => ({ error: { code: 'UnsupportedInfoType', message: 'x' } })
  infoRequests: Record<string, unknown>[] = []
  connectionsOpened = 0
  port = 0

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>
        this.infoRequests.push(body)
        const out = this.infoHandler(body)
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(typeof out === 'string' ? out : JSON.stringify(out, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)))
      })
    })
    this.wss = new WebSocketServer({ server: this.server, path: '/ws' })
    this.wss.on('connection', (ws) => {
      this.connectionsOpened++
      const entry = { ws, subs: new Set<string>() }
      this.sockets.add(entry)
      ws.on('close', () => this.sockets.delete(entry))
      ws.on('message', (raw) => {
        const msg = JSON.parse(raw.toString()) as { method: string; subscription?: { type: string; user?: string } }
        if (this.silent) return
        if (msg.method === 'ping') return ws.send(JSON.stringify({ channel: 'pong' }))
        if (msg.method === 'subscribe' && msg.subscription) {
          const key = `${msg.subscription.type}:${msg.subscription.user?.toLowerCase() ?? ''}`
          if (entry.subs.has(key))
            return ws.send(JSON.stringify({ channel: 'error', data: `Already subscribed: ${JSON.stringify(msg.subscription)}` }))
          if (entry.subs.size >= 10) return ws.send(JSON.stringify({ channel: 'error', data: 'Too many subscriptions' }))
          entry.subs.add(key)
          ws.send(JSON.stringify({ channel: 'subscriptionResponse', data: { method: 'subscribe', subscription: msg.subscription } }))
          this.onSubscribe?.(msg.subscription.type, msg.subscription.user?.toLowerCase() ?? '', (data) =>
            ws.send(JSON.stringify({ channel: msg.subscription!.type, data })),
          )
        }
        if (msg.method === 'unsubscribe' && msg.subscription) {
          entry.subs.delete(`${msg.subscription.type}:${msg.subscription.user?.toLowerCase() ?? ''}`)
        }
      })
    })
  }

  /** Called on each accepted subscription (e.g. to send the `userFills` snapshot). */
  onSubscribe?: (channel: string, user: string, send: (data: unknown) => void) => void

  async listen(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r))
    this.port = (this.server.address() as AddressInfo).port
    return this
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/ws`
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** Sends `{channel, data}` to every socket subscribed to `channel` for `user`; returns how many got it. */
  push(channel: string, user: string, data: unknown): number {
    const text = typeof data === 'string' ? `{"channel":"${channel}","data":${data}}` : JSON.stringify({ channel, data })
    let n = 0
    for (const s of this.sockets) {
      if (s.subs.has(`${channel}:${user.toLowerCase()}`) && s.ws.readyState === WebSocket.OPEN) {
        s.ws.send(text)
        n++
      }
    }
    return n
  }

  /** Sends raw bytes to every open socket as a text frame (or binary): garbage tests. */
  pushRaw(data: Buffer | string, opts: { binary?: boolean } = {}): number {
    let n = 0
    for (const s of this.sockets) {
      if (s.ws.readyState !== WebSocket.OPEN) continue
      s.ws.send(data, { binary: opts.binary ?? false })
      n++
    }
    return n
  }

  subscriptionCounts(): number[] {
    return [...this.sockets].map((s) => s.subs.size)
  }

  dropAll(): void {
    for (const s of this.sockets) s.ws.terminate()
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.ws.terminate()
    await new Promise<void>((r) => this.wss.close(() => r()))
    await new Promise<void>((r) => this.server.close(() => r()))
  }
}
