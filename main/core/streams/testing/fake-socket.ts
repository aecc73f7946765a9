import { EventEmitter } from 'node:events'
import type { SocketFactory, SocketLike } from '../connection'

/**
 * An in-memory socket for connection tests driven by a ManualClock: the test opens it,
 * feeds frames (text, binary, raw bytes), emits errors and closes, and reads what was sent.
 * With `autoPong` it answers each ping with a pong at once, as a healthy service does.
 */
export class FakeSocket extends EventEmitter implements SocketLike {
  readyState = 0
  readonly sent: unknown[] = []
  autoPong = false
  closedWith: number | null = null
  terminated = false

  open(): void {
    this.readyState = 1
    this.emit('open')
  }

  /** A text frame: a string or raw bytes as they came off the wire. */
  text(data: string | Buffer): void {
    this.emit('message', typeof data === 'string' ? Buffer.from(data, 'utf8') : data, false)
  }

  frame(channel: string, data?: unknown): void {
    this.text(JSON.stringify(data === undefined ? { channel } : { channel, data }))
  }

  binary(data: Buffer): void {
    this.emit('message', data, true)
  }

  send(data: string, cb?: (err?: Error) => void): void {
    const msg = JSON.parse(data) as { method?: string }
    this.sent.push(msg)
    cb?.()
    if (this.autoPong && msg.method === 'ping' && this.readyState === 1) this.frame('pong')
  }

  /** Methods sent so far, e.g. ['subscribe', 'ping']. */
  methods(): string[] {
    return this.sent.map((m) => (m as { method: string }).method)
  }

  close(code?: number): void {
    if (this.readyState >= 2) return
    this.closedWith = code ?? 1000
    this.readyState = 3
    this.emit('close', code ?? 1000, Buffer.alloc(0))
  }

  terminate(): void {
    this.terminated = true
    if (this.readyState >= 3) return
    this.readyState = 3
    this.emit('close', 1006, Buffer.alloc(0))
  }

  /** The peer or network failed: an 'error' (as ws emits) then 'close'. */
  fail(message: string): void {
    this.emit('error', new Error(message))
    this.readyState = 3
    this.emit('close', 1006, Buffer.alloc(0))
  }
}

/** A factory that records every socket it makes, newest last (`autoPong`: see `FakeSocket`). */
export function fakeSockets(opts: { autoPong?: boolean } = {}): { factory: SocketFactory; sockets: FakeSocket[]; last: () => FakeSocket } {
  const sockets: FakeSocket[] = []
  return {
    sockets,
    factory: () => {
      const s = new FakeSocket()
      s.autoPong = opts.autoPong ?? false
      sockets.push(s)
      return s
    },
    last: () => sockets[sockets.length - 1]!,
  }
}
