/**
 * The attach server: lets `desk` run its commands through this process's core (one journal
 * writer, one reconciler, one rate budget, the app's unlock state and confirmation rules).
 * Every request goes to `dispatch(channel, args, { host: 'cli', client })`; events go back,
 * a confirmation request only to the connection whose call triggered it. A bad line closes
 * that connection with a typed error; nothing a client sends can stop the host.
 */
import { randomUUID } from 'node:crypto'
import { chmodSync, lstatSync, unlinkSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import type { ErrorData } from '../../contract/types'
import type { DeskCore } from '../../core/app/compose'
import { attachEndpoint } from './endpoint'
import { encodeLine, lineSplitter, parseRequest, type AttachMessage } from './protocol'

export type AttachableCore = Pick<DeskCore, 'dispatch' | 'events'>

export interface AttachServer {
  readonly endpoint: string
  /** Connected desk clients right now. */
  connections(): number
  close(): Promise<void>
}

const MAX_CONNECTIONS = 16
const MAX_IN_FLIGHT = 32
/** Events are dropped (results never) for a client that does not read. */
const MAX_BUFFERED_EVENTS_BYTES = 4 * 1024 * 1024

/**
 * Starts listening for the data directory's desk clients. The caller holds the data
 * directory's lock, so a socket file found here is a leftover and is replaced.
 */
export async function startAttachServer(o: {
  core: AttachableCore
  dataDir: string
  version: string
  log?: (line: string) => void
}): Promise<AttachServer> {
  const endpoint = attachEndpoint(o.dataDir)
  const isPipe = process.platform === 'win32'
  if (!isPipe) removeLeftover(endpoint)
  const sockets = new Set<Socket>()
  const server = createServer({ allowHalfOpen: false }, (socket) => {
    if (sockets.size >= MAX_CONNECTIONS) {
      socket.end(
        encodeLine({
          type: 'error',
          error: { code: 'TooManyClients', message: 'too many desk clients are attached' },
        } satisfies AttachMessage),
      )
      return
    }
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    serveConnection(socket, o)
  })
  server.on('error', (e) => o.log?.(`attach: ${e.message}`))
  await listenOwnerOnly(server, endpoint, isPipe)
  return {
    endpoint,
    connections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

function removeLeftover(endpoint: string): void {
  try {
    if (lstatSync(endpoint).isSocket()) unlinkSync(endpoint)
  } catch {
    // Nothing there.
  }
}

/**
 * Creates the socket file 0600 from the start: the umask is narrowed only around `listen`,
 * which binds synchronously for a path; then chmod again in case the platform ignored it.
 */
async function listenOwnerOnly(server: Server, endpoint: string, isPipe: boolean): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    const previous = isPipe ? null : process.umask(0o177)
    try {
      server.listen(endpoint, () => {
        server.off('error', reject)
        resolve()
      })
    } finally {
      if (previous !== null) process.umask(previous)
    }
  })
  if (!isPipe) chmodSync(endpoint, 0o600)
}

function serveConnection(socket: Socket, o: { core: AttachableCore; version: string; log?: (line: string) => void }): void {
  const client = randomUUID()
  const ctx = { host: 'cli' as const, client }
  /** Confirmation requests sent to this client and not closed yet: declined if it goes away. */
  const openConfirms = new Set<string>()
  let inFlight = 0
  let closed = false

  const send = (m: AttachMessage, droppable = false) => {
    if (closed || socket.destroyed) return
    if (droppable && socket.writableLength > MAX_BUFFERED_EVENTS_BYTES) return
    socket.write(encodeLine(m))
  }
  const violate = (error: ErrorData) => {
    send({ type: 'error', error })
    closed = true
    socket.end()
    // A peer that never reads must not keep the socket open.
    setTimeout(() => socket.destroy(), 1000).unref()
  }

  const unsubscribe = o.core.events.subscribe((event, payload) => {
    if (event === 'confirm.request') {
      const p = payload as { id: string; origin: string; client?: string }
      if (p.origin !== 'cli' || p.client !== client) return
      openConfirms.add(p.id)
      return send({ type: 'event', event, payload })
    }
    if (event === 'confirm.closed') {
      const id = (payload as { id: string }).id
      if (!openConfirms.delete(id)) return
      return send({ type: 'event', event, payload })
    }
    send({ type: 'event', event, payload }, true)
  })

  const onLine = (line: string) => {
    if (closed) return
    const req = parseRequest(line)
    if (!req) return violate({ code: 'BadMessage', message: 'each line must be a JSON object {id, channel, args}' })
    if (inFlight >= MAX_IN_FLIGHT) {
      return send({
        type: 'result',
        id: req.id,
        result: { ok: false, error: { code: 'TooManyRequests', message: `at most ${MAX_IN_FLIGHT} requests at once per client` } },
      })
    }
    if (req.channel === 'confirm.respond') {
      // A desk answers only the confirmations of its own calls, never the app's or another desk's.
      const id = (req.args as { id?: unknown } | null)?.id
      if (typeof id !== 'string' || !openConfirms.has(id)) {
        return send({
          type: 'result',
          id: req.id,
          result: { ok: false, error: { code: 'NotYourConfirmation', message: 'this desk did not ask for that confirmation' } },
        })
      }
    }
    inFlight++
    o.core
      .dispatch(req.channel, req.args, ctx)
      .then(
        (result) => send({ type: 'result', id: req.id, result }),
        // The dispatcher never throws; this is belt and braces so a bug never kills the host.
        () => send({ type: 'result', id: req.id, result: { ok: false, error: { code: 'Internal', message: 'internal error' } } }),
      )
      .finally(() => inFlight--)
  }

  socket.on(
    'data',
    lineSplitter(onLine, () => violate({ code: 'MessageTooLarge', message: 'a line longer than the limit; closing' })),
  )
  socket.on('error', () => socket.destroy())
  socket.on('close', () => {
    closed = true
    unsubscribe()
    // Nothing is signed on behalf of a client that left.
    for (const id of openConfirms) void o.core.dispatch('confirm.respond', { id, approved: false }, ctx)
    openConfirms.clear()
  })
  send({ type: 'hello', pid: process.pid, version: o.version })
}
