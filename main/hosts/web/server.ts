import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { DeskError, toErrorData } from '../../core/errors/desk-error'
import type { DeskCore } from '../../core/app/compose'
import { readStaticFile, securityHeaders } from '../static-files'

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])
/**
 * Limits every bridge socket lives under. A socket that breaks one is closed on its own;
 * the process and every other session keep working.
 */
export interface SocketLimits {
  /** Inbound bridge messages are small intents; anything larger is refused (close 1009). */
  maxMessageBytes: number
  /** Token bucket over inbound frames (messages and pings): sustained rate... */
  framesPerSecond: number
  /** ...and the burst a page may send at once (its first screen asks for many queries). */
  frameBurst: number
  /** Outbound bytes queued for a socket that stopped reading; past this it is dropped. */
  maxBufferedBytes: number
  /** How long a closed-for-cause socket gets to finish the close handshake before it is cut. */
  closeGraceMs: number
}

export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  maxMessageBytes: 256 * 1024,
  framesPerSecond: 200,
  frameBurst: 400,
  maxBufferedBytes: 8 * 1024 * 1024,
  closeGraceMs: 2_000,
}

/** RFC 6455 close codes this host sends. */
export const CloseCode = {
  ProtocolError: 1002,
  InvalidPayload: 1007,
  PolicyViolation: 1008,
  MessageTooBig: 1009,
} as const

/**
 * The close code ws sends for each receiver error (it closes the socket itself); kept here so
 * the log line names it. Anything else ws raises on a live socket reads as a protocol error.
 */
function closeCodeFor(wsErrorCode: string | undefined): number {
  switch (wsErrorCode) {
    case 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH':
    case 'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH':
      return CloseCode.MessageTooBig
    case 'WS_ERR_INVALID_UTF8':
      return CloseCode.InvalidPayload
    case 'WS_ERR_TOO_MANY_BUFFERED_PARTS':
      return CloseCode.PolicyViolation
    default:
      return CloseCode.ProtocolError
  }
}

export interface WebHostOptions {
  core: Pick<DeskCore, 'dispatch' | 'events' | 'touch'> & Partial<Pick<DeskCore, 'senderGone'>>
  rendererRoot: string
  host?: string
  port?: number
  /** Fixed token for tests; a random one per launch otherwise. */
  token?: string
  /** Sees every bridge message in both directions (end-to-end key-leak search). */
  tap?: (direction: 'in' | 'out', text: string) => void
  /** Per-socket limits; tests shrink them. */
  limits?: Partial<SocketLimits>
  /** One line per socket event (never payload content); stderr by default. */
  log?: (line: string) => void
}

export interface WebHost {
  /** The URL to open, with the token in the fragment (never sent to the server in HTTP requests). */
  url: string
  origin: string
  token: string
  port: number
  close(): Promise<void>
}

/**
 * The build's assets are named by their content hash (assets/start-VLKS8ChG.js): the browser may
 * keep them, so a reload neither fetches nor recompiles the app's bundle (Chromium keeps the
 * compiled code of a cached script); index.html, which names them, is never stored.
 */
const HASHED_ASSET = /^\/assets\/[\w.-]+-[\w-]{8}\.(?:js|css)$/
export function cachingOf(url: string): Record<string, string> {
  return HASHED_ASSET.test(url.split(/[?#]/)[0]!) ? { 'cache-control': 'public, max-age=31536000, immutable' } : {}
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** A token bucket: `take()` is false once the socket spends more than its burst plus refill. */
function frameBucket(perSecond: number, burst: number, now: () => number = () => performance.now()) {
  let tokens = burst
  let last = now()
  return {
    take(): boolean {
      const t = now()
      tokens = Math.min(burst, tokens + ((t - last) / 1000) * perSecond)
      last = t
      if (tokens < 1) return false
      tokens -= 1
      return true
    },
  }
}

/**
 * Serves the built renderer and the contract over a WebSocket on loopback only. Every HTTP
 * request must name this host (no DNS rebinding); the bridge socket must come from this
 * origin and present the per-launch token. Nothing a socket sends can take the process down:
 * protocol violations, oversized or invalid frames, floods and stalled readers close that
 * socket only, and are logged once.
 */
export async function startWebHost(opts: WebHostOptions): Promise<WebHost> {
  const host = opts.host ?? '127.0.0.1'
  if (!LOOPBACK.has(host)) throw new DeskError('NonLoopbackBind', `The web host binds to loopback only; refusing "${host}".`)
  const bindHost = host === 'localhost' ? '127.0.0.1' : host
  const token = opts.token ?? randomBytes(32).toString('hex')
  const limits: SocketLimits = { ...DEFAULT_SOCKET_LIMITS, ...opts.limits }
  const log = opts.log ?? ((line: string) => process.stderr.write(`[web-host] ${line}\n`))
  let port = 0
  let nextSocketId = 1
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`])
  const allowedOrigins = () => new Set([...allowedHosts()].map((h) => `http://${h}`))

  const server = createServer((req, res) => {
    if (!allowedHosts().has(req.headers.host ?? '')) {
      res.writeHead(421, { 'content-type': 'text/plain' }).end('misdirected request')
      return
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain' }).end('method not allowed')
      return
    }
    readStaticFile(opts.rendererRoot, req.url ?? '/').then(
      (file) => {
        if (!file) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
          return
        }
        res
          .writeHead(200, { ...securityHeaders(file.mime), ...cachingOf(req.url ?? '/') })
          .end(req.method === 'HEAD' ? undefined : file.body)
      },
      () => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
        res.end('internal error')
      },
    )
  })
  // A listening server's errors (EMFILE on accept, ...) are logged, never thrown.
  const onServerError = (err: Error & { code?: string }) => log(`http server error ${err.code ?? err.name}`)

  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, perMessageDeflate: false })
  wss.on('error', (err: Error & { code?: string }) => log(`websocket server error ${err.code ?? err.name}`))
  const sockets = new Set<WebSocket>()

  /** One log line per socket, whatever happens to it afterwards. */
  const logOnce = (state: { logged: boolean }, line: string) => {
    if (state.logged) return
    state.logged = true
    log(line)
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A reset or broken upgrade socket must not raise an uncaught 'error'.
    const rawState = { logged: false }
    socket.on('error', (err: Error & { code?: string }) => logOnce(rawState, `upgrade socket error ${err.code ?? err.name}`))
    const url = new URL(req.url ?? '/', 'http://x')
    const given = url.searchParams.get('token') ?? ''
    const okHost = allowedHosts().has(req.headers.host ?? '')
    const okOrigin = allowedOrigins().has(req.headers.origin ?? '')
    if (url.pathname !== '/bridge' || !okHost || !okOrigin || !sameToken(given, token)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nforbidden')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws))
  })

  interface SocketState {
    id: number
    /** The one log line for this socket has been written. */
    logged: boolean
    /** Closed or being closed for cause: nothing more is read from or sent to it. */
    closing: boolean
    bucket: ReturnType<typeof frameBucket>
  }
  const states = new WeakMap<WebSocket, SocketState>()

  /** A peer that never answers our close frame is cut after a short grace (ws waits 30 s). */
  const cutAfterGrace = (ws: WebSocket) => {
    const cut = setTimeout(() => ws.terminate(), limits.closeGraceMs)
    cut.unref()
    ws.once('close', () => clearTimeout(cut))
  }

  /** Closes one socket for cause: close frame with `code`, cut if the handshake does not finish. */
  const closeForCause = (ws: WebSocket, state: SocketState, code: number, reason: string) => {
    if (state.closing) return
    state.closing = true
    logOnce(state, `socket #${state.id} closed ${code} ${reason}`)
    if (ws.readyState === ws.OPEN) ws.close(code, reason)
    cutAfterGrace(ws)
  }

  const send = (ws: WebSocket, msg: unknown) => {
    const state = states.get(ws)
    if (!state || state.closing || ws.readyState !== ws.OPEN) return
    const text = JSON.stringify(msg)
    opts.tap?.('out', text)
    // A page that stopped reading would otherwise grow this queue without bound.
    if (ws.bufferedAmount + Buffer.byteLength(text) > limits.maxBufferedBytes) {
      state.closing = true
      logOnce(
        state,
        `socket #${state.id} closed ${CloseCode.PolicyViolation} send buffer over ${limits.maxBufferedBytes} bytes (peer not reading)`,
      )
      // The peer reads nothing, so a close frame would only queue behind the backlog: cut it.
      ws.terminate()
      return
    }
    ws.send(text)
  }

  const unsubscribe = opts.core.events.subscribe((event, payload) => {
    for (const ws of sockets) send(ws, { event, payload })
  })

  wss.on('connection', (ws: WebSocket) => {
    const state: SocketState = {
      id: nextSocketId++,
      logged: false,
      closing: false,
      bucket: frameBucket(limits.framesPerSecond, limits.frameBurst),
    }
    states.set(ws, state)
    sockets.add(ws)
    // Each socket is one sender: a reload or a dropped socket ends what it held (screen leases).
    const sender = `web:${state.id}`
    ws.on('close', () => {
      sockets.delete(ws)
      opts.core.senderGone?.(sender)
    })
    // ws closes the socket itself with the matching code (1009 too big, 1002 protocol, 1007
    // invalid UTF-8); without this listener the error would be uncaught and end the process.
    ws.on('error', (err: Error & { code?: string }) => {
      const first = !state.closing
      state.closing = true
      logOnce(state, `socket #${state.id} closed ${closeCodeFor(err.code)} ${err.code ?? err.name}`)
      if (first) cutAfterGrace(ws)
    })
    const overRate = () => {
      if (state.bucket.take()) return false
      closeForCause(ws, state, CloseCode.PolicyViolation, 'frame rate limit')
      return true
    }
    ws.on('ping', () => {
      // ws itself cuts a socket whose pongs back up (maxPendingAutoPongs) before emitting this.
      if (ws.readyState !== ws.OPEN && !state.closing) {
        state.closing = true
        logOnce(state, `socket #${state.id} cut: ping flood (pong backlog)`)
        return
      }
      overRate()
    })
    ws.on('pong', () => void overRate())
    ws.on('message', (data, isBinary) => {
      if (state.closing || overRate()) return
      const text = isBinary ? '' : data.toString()
      opts.tap?.('in', text)
      let msg: { id?: unknown; channel?: unknown; args?: unknown }
      try {
        msg = JSON.parse(text) as typeof msg
      } catch {
        send(ws, { id: null, result: { ok: false, error: { code: 'InvalidMessage', message: 'Bridge messages are JSON objects.' } } })
        return
      }
      if (typeof msg !== 'object' || msg === null || typeof msg.id !== 'number') {
        send(ws, { id: null, result: { ok: false, error: { code: 'InvalidMessage', message: 'Bridge messages carry a numeric id.' } } })
        return
      }
      const id = msg.id
      opts.core.touch()
      opts.core.dispatch(msg.channel, msg.args, { host: 'web', sender }).then(
        (result) => send(ws, { id, result }),
        // The dispatcher answers with typed errors; a rejection here is a bug, not a crash.
        () => send(ws, { id, result: { ok: false, error: toErrorData(undefined) } }),
      )
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, bindHost, () => {
      server.off('error', reject)
      server.on('error', onServerError)
      resolve()
    })
  })
  port = (server.address() as AddressInfo).port
  const origin = `http://${bindHost === '::1' ? '[::1]' : bindHost}:${port}`

  return {
    url: `${origin}/#token=${token}`,
    origin,
    token,
    port,
    async close() {
      unsubscribe()
      for (const ws of sockets) ws.terminate()
      wss.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
