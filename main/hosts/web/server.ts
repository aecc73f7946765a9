import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { DeskError } from '../../core/errors/desk-error'
import type { DeskCore } from '../../core/app/compose'
import { readStaticFile, securityHeaders } from '../static-files'

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])
/** Inbound bridge messages are small intents; anything larger is refused. */
const MAX_MESSAGE_BYTES = 256 * 1024

export interface WebHostOptions {
  core: Pick<DeskCore, 'dispatch' | 'events' | 'touch'>
  rendererRoot: string
  host?: string
  port?: number
  /** Fixed token for tests; a random one per launch otherwise. */
  token?: string
  /** Sees every bridge message in both directions (end-to-end key-leak search). */
  tap?: (direction: 'in' | 'out', text: string) => void
}

export interface WebHost {
  /** The URL to open, with the token in the fragment (never sent to the server in HTTP requests). */
  url: string
  origin: string
  token: string
  port: number
  close(): Promise<void>
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * Serves the built renderer and the contract over a WebSocket on loopback only. Every HTTP
 * request must name this host (no DNS rebinding); the bridge socket must come from this
 * origin and present the per-launch token.
 */
export async function startWebHost(opts: WebHostOptions): Promise<WebHost> {
  const host = opts.host ?? '127.0.0.1'
  if (!LOOPBACK.has(host)) throw new DeskError('NonLoopbackBind', `The web host binds to loopback only; refusing "${host}".`)
  const bindHost = host === 'localhost' ? '127.0.0.1' : host
  const token = opts.token ?? randomBytes(32).toString('hex')
  let port = 0
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
    void readStaticFile(opts.rendererRoot, req.url ?? '/').then((file) => {
      if (!file) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
        return
      }
      res.writeHead(200, securityHeaders(file.mime)).end(req.method === 'HEAD' ? undefined : file.body)
    })
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES })
  const sockets = new Set<WebSocket>()

  server.on('upgrade', (req: IncomingMessage, socket, head) => {
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

  const send = (ws: WebSocket, msg: unknown) => {
    const text = JSON.stringify(msg)
    opts.tap?.('out', text)
    if (ws.readyState === ws.OPEN) ws.send(text)
  }

  const unsubscribe = opts.core.events.subscribe((event, payload) => {
    for (const ws of sockets) send(ws, { event, payload })
  })

  wss.on('connection', (ws) => {
    sockets.add(ws)
    ws.on('close', () => sockets.delete(ws))
    ws.on('message', (data, isBinary) => {
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
      void opts.core.dispatch(msg.channel, msg.args, { host: 'web' }).then((result) => send(ws, { id, result }))
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, bindHost, () => resolve())
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
