/**
 * HTTP composition of the sandbox: `/info`, `/trade`, `/ws` (upgrade), `/api/v3/earn`,
 * the `/sandbox/deposit` faucet and the loopback-only `/admin/*` endpoint, on one port
 * (or the earn pool on its own port). Bodies are read up to their cap and no further.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TradingService } from './trading/types'
import type { EarnHandler } from './earn/earn-handler'
import type { SandboxWsServer } from './ws/ws-server'
import type { AdminApi } from './admin/admin-api'

export const INFO_BODY_CAP = 64 * 1024
export const TRADE_BODY_CAP = 256 * 1024
export const EARN_BODY_CAP = 64 * 1024
export const ADMIN_BODY_CAP = 1024 * 1024

export interface RouteDeps {
  trading: TradingService
  earn: EarnHandler
  ws: SandboxWsServer
  admin: AdminApi
  /** serve the earn route on this server (false when the pool has its own port) */
  serveEarn: boolean
  /** serve trading routes, `/ws`, faucet and admin on this server */
  serveTrading: boolean
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])
export function isLoopbackAddress(addr: string | undefined): boolean {
  return addr !== undefined && (LOOPBACK.has(addr) || addr.startsWith('127.') || addr.startsWith('::ffff:127.'))
}

/** JSON with bigints as decimal strings (admin ground truth carries atoms). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
}

type ReadResult = { ok: true; text: string } | { ok: false; tooLarge: true }

/** Reads the body up to `cap` bytes; beyond it, stops reading and reports too large. */
export function readBody(req: IncomingMessage, cap: number): Promise<ReadResult> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > cap) {
    req.resume()
    return Promise.resolve({ ok: false, tooLarge: true })
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    req.on('data', (c: Buffer) => {
      if (done) return
      size += c.length
      if (size > cap) {
        done = true
        resolve({ ok: false, tooLarge: true })
        return
      }
      chunks.push(c)
    })
    req.on('end', () => {
      if (!done) resolve({ ok: true, text: Buffer.concat(chunks).toString('utf8') })
    })
    req.on('error', reject)
  })
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(body)
}

const ip = (req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown'

export function createRouter(deps: RouteDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox')
    const path = url.pathname
    try {
      if (deps.serveEarn && path === '/api/v3/earn') {
        if (req.method !== 'POST') return send(res, 405, toJson({ error: { code: 'MethodNotAllowed', message: 'use POST' } }))
        const body = await readBody(req, EARN_BODY_CAP)
        if (!body.ok) {
          // The pool answers HTTP 200 with a code, always (earn-api §4).
          return send(res, 200, toJson({ code: 131004, message: `request body exceeds ${EARN_BODY_CAP} bytes` }), {
            trace_id: cryptoTrace(),
          })
        }
        const out = await deps.earn.handle(body.text, ip(req))
        return send(res, out.status, out.body, out.headers)
      }
      if (deps.serveTrading) {
        if (path === '/info') {
          if (req.method !== 'POST') return send(res, 405, toJson({ error: { code: 'InvalidInfoRequest', message: 'use POST' } }))
          const body = await readBody(req, INFO_BODY_CAP)
          if (!body.ok)
            return send(res, 413, toJson({ error: { code: 'PayloadTooLarge', message: `request body exceeds ${INFO_BODY_CAP} bytes` } }))
          const out = await deps.trading.handleInfo(body.text, ip(req))
          return send(res, out.status, toJson(out.body), out.headers)
        }
        if (path === '/trade') {
          // every /trade answer carries x-trace-id, HTTP errors included (trading-api §4)
          const trace = validTrace(req.headers['x-trace-id']) ?? cryptoTrace()
          if (req.method !== 'POST') {
            return send(res, 405, toJson({ submission_status: 'rejected', error: { code: 'InvalidJson' } }), {
              'x-trace-id': trace,
              allow: 'POST',
            })
          }
          const body = await readBody(req, TRADE_BODY_CAP)
          if (!body.ok)
            return send(res, 413, toJson({ submission_status: 'rejected', error: { code: 'RequestTooLarge' } }), { 'x-trace-id': trace })
          const headers: Record<string, string | undefined> = {}
          for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v[0] : v
          const out = await deps.trading.handleTrade(body.text, headers, ip(req))
          return send(res, out.status, toJson(out.body), out.headers)
        }
        if (path === '/sandbox/deposit' || path.startsWith('/admin/') || path === '/admin') {
          if (!isLoopbackAddress(req.socket.remoteAddress))
            return send(res, 403, toJson({ error: { code: 'Forbidden', message: 'loopback only' } }))
          let parsed: unknown = undefined
          if (req.method === 'POST') {
            const body = await readBody(req, ADMIN_BODY_CAP)
            if (!body.ok) return send(res, 413, toJson({ error: { code: 'PayloadTooLarge', message: 'admin body too large' } }))
            if (body.text.trim() !== '') {
              try {
                parsed = JSON.parse(body.text)
              } catch {
                return send(res, 400, toJson({ error: { code: 'InvalidJson', message: 'body must be JSON' } }))
              }
            }
          }
          const route = path === '/sandbox/deposit' ? 'faucet' : path.slice('/admin/'.length)
          const out = await deps.admin.handle(req.method ?? 'GET', route, parsed, url.searchParams)
          return send(res, out.status, toJson(out.body))
        }
        if (path === '/' && req.method === 'GET') return send(res, 200, toJson(deps.admin.describe()))
      }
      return send(res, 404, toJson({ error: { code: 'NotFound', message: `no route ${req.method} ${path}` } }))
    } catch {
      const extra: Record<string, string> =
        path === '/trade' && deps.serveTrading ? { 'x-trace-id': validTrace(req.headers['x-trace-id']) ?? cryptoTrace() } : {}
      return send(res, 500, toJson({ error: { code: 'Internal', message: 'sandbox internal error' } }), extra)
    }
  }
}

function validTrace(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v
  return s && /^[A-Za-z0-9._:-]{1,128}$/.test(s) ? s : undefined
}
function cryptoTrace(): string {
  return randomBytes(16).toString('hex')
}

/** Creates and binds a server; refuses any host but loopback. */
export async function listenLoopback(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host: string,
  port: number,
): Promise<{ server: Server; port: number }> {
  if (host !== '127.0.0.1' && host !== '::1' && host !== 'localhost') {
    throw new Error(`the sandbox binds to loopback only (127.0.0.1); refused host ${host}`)
  }
  const server = createServer(handler)
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host === 'localhost' ? '127.0.0.1' : host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return { server, port: (server.address() as AddressInfo).port }
}

/** Closes a server and every connection still open on it. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}
