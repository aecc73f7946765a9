/**
 * The sandbox `/ws` socket (trading-api §4 "WebSocket", §6, §8): subscriptions on nine channels
 * with their snapshot and cadence rules, `post` of /info and /trade bodies, ping/pong, the idle
 * close, the inbound size cap, and fault hooks (dropped event frames, disconnects, a silent socket).
 */
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, WebSocket, type RawData } from 'ws'
import type { Address } from 'viem'
import type { BlockEvents, HttpResult, TradingService, WsOrderUpdate } from '../trading/types'
import { parseSubscription, topicKey, type Topic } from './subscriptions'
import { PUSH_FLOORS_MS, Throttle, type ThrottledChannel } from './throttle'
import { splitArrayFrames } from './split-frames'

export interface WsFaults {
  /** probability (0..1) that an event frame (trades, bbo, userFills, orderUpdates) is dropped */
  dropProbability: number
  /** the server stops writing anything (no pong, no pushes) while the socket stays open */
  silent: boolean
  /**
   * Enforce the limits the spec only counts (§8): a second open connection from the same IP,
   * or a 31st new connection from it within a minute, gets an error frame
   * (`Too many connections` / `Too many new connections`) and is closed (1008).
   */
  enforceConnectionLimits: boolean
}

/** Spec §8: connections per IP and new connections per IP per minute (counted; enforced under the fault). */
export const CONNECTIONS_PER_IP = 1
export const NEW_CONNECTIONS_PER_MINUTE = 30

export interface WsLimitStats {
  /** connection attempts (accepted or refused) per IP in the last minute */
  newConnectionsLastMinute: Record<string, number>
  /** the most connections one IP held open at once since start */
  maxOpenPerIp: number
  /** the most subscriptions one connection held at once since start */
  maxSubscriptions: number
  /** connections refused under `enforceConnectionLimits`, by reason */
  refused: { tooMany: number; tooManyNew: number }
}

export interface WsServerOptions {
  /** close after this long without an outbound frame; default 60 000 */
  idleMs?: number
  /** inbound message cap in bytes; default 64 KiB (a larger frame closes the socket with 1009) */
  maxInboundBytes?: number
  /** subscriptions per connection; default 10 */
  maxSubscriptions?: number
  /** an event push is refused (socket dropped) once this many bytes are buffered; default 8 MiB */
  slowConsumerBytes?: number
  now?: () => number
  random?: () => number
}

export interface SandboxWsServer {
  readonly faults: WsFaults
  /** hands an HTTP upgrade on `/ws` to the socket server */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void
  /** drops every connection abruptly; returns how many were open */
  disconnectAll(): number
  connectionCount(): number
  /** what the counted connection limits saw (always counted, enforced only under the fault) */
  limitStats(): WsLimitStats
  close(): Promise<void>
}

interface Subscription {
  topic: Topic
  /** as sent, echoed in the acknowledgement */
  raw: unknown
  throttle: Throttle | null
}

interface Connection {
  ws: WebSocket
  ip: string
  subs: Map<string, Subscription>
  idle: ReturnType<typeof setTimeout> | null
}

const EVENT_CHANNELS = new Set(['trades', 'bbo', 'userFills', 'orderUpdates'])

export function createWsServer(trading: TradingService, opts: WsServerOptions = {}): SandboxWsServer {
  const idleMs = opts.idleMs ?? 60_000
  const maxSubs = opts.maxSubscriptions ?? 10
  const slowBytes = opts.slowConsumerBytes ?? 8 * 1024 * 1024
  const now = opts.now ?? Date.now
  const random = opts.random ?? Math.random
  const faults: WsFaults = { dropProbability: 0, silent: false, enforceConnectionLimits: false }
  /** ip -> times of its connection attempts in the last minute */
  const attemptsByIp = new Map<string, number[]>()
  const limits: WsLimitStats['refused'] = { tooMany: 0, tooManyNew: 0 }
  let maxOpenPerIp = 0
  let maxSubsHeld = 0
  const openFrom = (ip: string) => {
    let n = 0
    for (const c of conns) if (c.ip === ip) n++
    return n
  }
  const recentAttempts = (ip: string): number[] => {
    const list = attemptsByIp.get(ip) ?? []
    const from = now() - 60_000
    while (list.length > 0 && list[0]! <= from) list.shift()
    if (list.length === 0) attemptsByIp.delete(ip)
    else attemptsByIp.set(ip, list)
    return list
  }
  /** Counts the attempt; under the fault, refuses it with the reason, else null. */
  function admit(ws: WebSocket, ip: string): boolean {
    const attempts = recentAttempts(ip)
    const over = attempts.length >= NEW_CONNECTIONS_PER_MINUTE
    attempts.push(now())
    attemptsByIp.set(ip, attempts)
    const reason = !faults.enforceConnectionLimits
      ? null
      : openFrom(ip) >= CONNECTIONS_PER_IP
        ? 'Too many connections'
        : over
          ? 'Too many new connections'
          : null
    if (reason === null) return true
    if (reason === 'Too many connections') limits.tooMany++
    else limits.tooManyNew++
    ws.send(JSON.stringify({ channel: 'error', data: reason }))
    ws.close(1008, reason)
    return false
  }
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxInboundBytes ?? 64 * 1024 })
  const conns = new Set<Connection>()
  /** topic key -> connections subscribed to it */
  const byTopic = new Map<string, Set<Connection>>()
  const inFlightByIp = new Map<string, number>()
  /** last bbo pushed per market, so `bbo` is an event of change, not of every touch */
  const lastBbo = new Map<string, string>()

  function resetIdle(c: Connection): void {
    if (c.idle) clearTimeout(c.idle)
    c.idle = setTimeout(() => c.ws.close(1000, 'idle timeout'), idleMs)
  }

  function send(c: Connection, text: string, channel: string): void {
    if (faults.silent || c.ws.readyState !== WebSocket.OPEN) return
    const event = EVENT_CHANNELS.has(channel)
    if (event) {
      if (faults.dropProbability > 0 && random() < faults.dropProbability) return
      if (c.ws.bufferedAmount > slowBytes) {
        c.ws.terminate() // a slow consumer of event channels is dropped (§6)
        return
      }
    }
    c.ws.send(text)
    resetIdle(c)
  }
  const frame = (channel: string, data?: unknown) => JSON.stringify(data === undefined ? { channel } : { channel, data })
  const sendFrame = (c: Connection, channel: string, data?: unknown) => send(c, frame(channel, data), channel)
  const sendError = (c: Connection, text: string) => sendFrame(c, 'error', text)

  /** Current payload of a snapshot channel for a topic, or null (market vanished). */
  function snapshotPayload(t: Topic, first: boolean): unknown {
    switch (t.channel) {
      case 'l2Book':
        return trading.l2Book(t.coin, 10)
      case 'allMids':
        return trading.allMids()
      case 'openOrders': {
        const o = trading.openOrders(t.user as Address)
        return first ? { isSnapshot: true, ...o } : o
      }
      case 'spotState':
        return trading.spotState(t.user as Address)
      case 'spotCreditState': {
        const s = trading.spotCreditState(t.user as Address)
        return first ? { isSnapshot: true, ...s } : s
      }
      default:
        return null
    }
  }

  function subscribe(c: Connection, raw: string, subscription: unknown): void {
    const parsed = parseSubscription(subscription, raw, (id) => trading.marketExists(id))
    if (!parsed.ok) return sendError(c, parsed.error)
    const key = topicKey(parsed.topic)
    if (c.subs.has(key)) return sendError(c, `Already subscribed: ${JSON.stringify(subscription)}`)
    if (c.subs.size >= maxSubs) return sendError(c, 'Too many subscriptions')
    const t = parsed.topic
    const floor = (PUSH_FLOORS_MS as Record<string, number>)[t.channel]
    const sub: Subscription = {
      topic: t,
      raw: subscription,
      throttle:
        floor === undefined
          ? null
          : new Throttle(
              floor,
              () => {
                const p = snapshotPayload(t, false)
                if (p !== null) sendFrame(c, t.channel, p)
              },
              now,
            ),
    }
    c.subs.set(key, sub)
    maxSubsHeld = Math.max(maxSubsHeld, c.subs.size)
    let set = byTopic.get(key)
    if (!set) byTopic.set(key, (set = new Set()))
    set.add(c)
    sendFrame(c, 'subscriptionResponse', { method: 'subscribe', subscription })
    // Snapshots on subscribe: userFills replays the last 100; snapshot channels send their state.
    if (t.channel === 'userFills') {
      sendFrame(c, 'userFills', { user: t.user, fills: trading.recentFills(t.user as Address, 100), isSnapshot: true })
    } else if (sub.throttle) {
      const p = snapshotPayload(t, true)
      if (p !== null) {
        sendFrame(c, t.channel, p)
        sub.throttle.markSent()
      }
    }
  }

  function unsubscribe(c: Connection, raw: string, subscription: unknown): void {
    const parsed = parseSubscription(subscription, raw, () => true)
    if (!parsed.ok) return sendError(c, parsed.error)
    const key = topicKey(parsed.topic)
    const sub = c.subs.get(key)
    if (!sub) return sendError(c, `Already unsubscribed: ${JSON.stringify(subscription)}`)
    dropSub(c, key, sub)
    sendFrame(c, 'subscriptionResponse', { method: 'unsubscribe', subscription })
  }

  function dropSub(c: Connection, key: string, sub: Subscription): void {
    sub.throttle?.cancel()
    c.subs.delete(key)
    const set = byTopic.get(key)
    set?.delete(c)
    if (set && set.size === 0) byTopic.delete(key)
  }

  async function post(c: Connection, msg: Record<string, unknown>, raw: string): Promise<void> {
    const id = msg.id
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) return sendError(c, `Invalid post request (id must be an integer): ${raw}`)
    const reply = (type: string, payload: unknown) => sendFrame(c, 'post', { id, response: { type, payload } })
    const req = msg.request as Record<string, unknown> | undefined
    if (typeof req !== 'object' || req === null || Array.isArray(req)) return reply('error', '400 post request must carry {type, payload}')
    if (req.type === 'explorer') return reply('error', '400 explorer requests are not supported')
    if (req.type !== 'info' && req.type !== 'action') return reply('error', `400 unsupported post request type: ${String(req.type)}`)
    if ((inFlightByIp.get(c.ip) ?? 0) >= 1) return reply('error', '429 Too many in-flight post requests')
    inFlightByIp.set(c.ip, (inFlightByIp.get(c.ip) ?? 0) + 1)
    try {
      const body = JSON.stringify(req.payload ?? null)
      const res = req.type === 'info' ? await trading.handleInfo(body, c.ip) : await trading.handleTrade(body, {}, c.ip)
      if (res.status >= 200 && res.status < 300) reply(req.type, res.body)
      else reply('error', flattenFailure(res))
    } catch {
      reply('error', '500 internal error')
    } finally {
      const n = (inFlightByIp.get(c.ip) ?? 1) - 1
      if (n <= 0) inFlightByIp.delete(c.ip)
      else inFlightByIp.set(c.ip, n)
    }
  }

  function onMessage(c: Connection, data: RawData, isBinary: boolean): void {
    const raw = isBinary ? '<binary frame>' : data.toString()
    let msg: unknown
    try {
      msg = isBinary ? undefined : JSON.parse(raw)
    } catch {
      msg = undefined
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return sendError(c, `Invalid JSON request: ${truncate(raw)}`)
    const m = msg as Record<string, unknown>
    switch (m.method) {
      case 'subscribe':
        return subscribe(c, raw, m.subscription)
      case 'unsubscribe':
        return unsubscribe(c, raw, m.subscription)
      case 'ping':
        return sendFrame(c, 'pong')
      case 'post':
        void post(c, m, raw)
        return
      default:
        return sendError(c, `Unknown method: ${truncate(raw)}`)
    }
  }

  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    const c: Connection = { ws, ip: req.socket.remoteAddress ?? 'unknown', subs: new Map(), idle: null }
    if (!admit(ws, c.ip)) {
      ws.on('error', () => ws.terminate())
      return
    }
    conns.add(c)
    maxOpenPerIp = Math.max(maxOpenPerIp, openFrom(c.ip))
    resetIdle(c)
    ws.on('message', (data, isBinary) => onMessage(c, data, isBinary))
    ws.on('error', () => ws.terminate())
    ws.on('close', () => {
      if (c.idle) clearTimeout(c.idle)
      for (const [key, sub] of [...c.subs]) dropSub(c, key, sub)
      conns.delete(c)
    })
  })

  // ---------------------------------------------------------------- block fan-out

  function subscribers(key: string): Set<Connection> | undefined {
    const s = byTopic.get(key)
    return s && s.size > 0 ? s : undefined
  }

  function onBlock(b: BlockEvents): void {
    const tradesByCoin = groupBy(b.trades, (t) => t.coin)
    for (const [coin, trades] of tradesByCoin) {
      const subs = subscribers(`trades:${coin}`)
      if (subs) {
        const text = frame('trades', trades)
        for (const c of subs) send(c, text, 'trades')
      }
    }
    for (const coin of b.touchedMarkets) {
      const bboSubs = subscribers(`bbo:${coin}`)
      if (bboSubs) {
        const bbo = trading.bbo(coin)
        const sig = bbo ? JSON.stringify(bbo.bbo) : 'null'
        if (bbo && lastBbo.get(coin) !== sig) {
          lastBbo.set(coin, sig)
          const text = frame('bbo', bbo)
          for (const c of bboSubs) send(c, text, 'bbo')
        }
      }
      touchAll(`l2Book:${coin}`)
    }
    if (b.touchedMarkets.size > 0) touchAll('allMids')
    for (const [user, fills] of groupBy(b.fills, (f) => f.user.toLowerCase())) {
      const subs = subscribers(`userFills:${user}`)
      if (subs) {
        const text = frame('userFills', { user, fills: fills.map((f) => f.fill) })
        for (const c of subs) send(c, text, 'userFills')
      }
    }
    for (const [user, ups] of groupBy(b.orderUpdates, (u) => u.user.toLowerCase())) {
      const subs = subscribers(`orderUpdates:${user}`)
      if (subs) {
        const frames = splitArrayFrames(
          'orderUpdates',
          ups.map((u): WsOrderUpdate => u.update),
        )
        for (const c of subs) for (const f of frames) send(c, f, 'orderUpdates')
      }
    }
    for (const u of b.touchedUsers) {
      const user = u.toLowerCase()
      for (const ch of ['openOrders', 'spotState', 'spotCreditState'] as const) touchAll(`${ch}:${user}`)
    }
  }

  function touchAll(key: string): void {
    const subs = subscribers(key)
    if (!subs) return
    for (const c of subs) c.subs.get(key)?.throttle?.touch()
  }

  const offBlock = trading.onBlock(onBlock)

  return {
    faults,
    handleUpgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
    },
    disconnectAll() {
      const n = conns.size
      for (const c of [...conns]) c.ws.terminate()
      return n
    },
    connectionCount: () => conns.size,
    limitStats() {
      const newConnectionsLastMinute: Record<string, number> = {}
      for (const ip of [...attemptsByIp.keys()]) {
        const n = recentAttempts(ip).length
        if (n > 0) newConnectionsLastMinute[ip] = n
      }
      return { newConnectionsLastMinute, maxOpenPerIp, maxSubscriptions: maxSubsHeld, refused: { ...limits } }
    },
    close() {
      offBlock()
      for (const c of [...conns]) {
        if (c.idle) clearTimeout(c.idle)
        for (const sub of c.subs.values()) sub.throttle?.cancel()
        c.ws.terminate()
      }
      return new Promise<void>((resolve) => wss.close(() => resolve()))
    },
  }
}

/** Non-2xx `/info` or `/trade` answer as the socket reports it: "<status> <code or message>". */
export function flattenFailure(res: HttpResult): string {
  const body = res.body as { error?: unknown } | null
  const err = body && typeof body === 'object' ? body.error : undefined
  const e = (typeof err === 'object' && err !== null ? err : {}) as { code?: unknown; message?: unknown; retry_after_ms?: unknown }
  if (res.status === 429 && (e.code === 'RateLimited' || e.code === undefined)) {
    const fromMsg = typeof e.message === 'string' ? /(\d+)\s*ms/.exec(e.message)?.[1] : undefined
    const ms = typeof e.retry_after_ms === 'number' ? e.retry_after_ms : fromMsg !== undefined ? Number(fromMsg) : 1000
    return `429 Rate limited, retry after ${ms}ms`
  }
  const what = typeof e.code === 'string' ? e.code : typeof e.message === 'string' ? e.message : typeof err === 'string' ? err : 'error'
  return `${res.status} ${what}`
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>()
  for (const it of items) {
    const k = key(it)
    const arr = m.get(k)
    if (arr) arr.push(it)
    else m.set(k, [it])
  }
  return m
}

function truncate(s: string): string {
  return s.length > 2000 ? s.slice(0, 2000) + '…' : s
}

export type { ThrottledChannel }
