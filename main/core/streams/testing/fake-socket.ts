import { EventEmitter } from 'node:events'
import type { SocketFactory, SocketLike } from '../connection'

/**
 * An in-memory socket for connection tests driven by a ManualClock: the test opens it,
 * feeds frames (text, binary, raw bytes), emits errors and closes, and reads what was sent.
 */
export class FakeSocket extends EventEmitter implements SocketLike {
  readyState = 0
  readonly sent: unknown[] = []
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
    this.sent.push(JSON.parse(data))
    cb?.()
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

/** A factory that records every socket it makes, newest last. */
export function fakeSockets(): { factory: SocketFactory; sockets: FakeSocket[]; last: () => FakeSocket } {
  const sockets: FakeSocket[] = []
  return {
    sockets,
    factory: () => {
      const s = new FakeSocket()
      sockets.push(s)
      return s
    },
    last: () => sockets[sockets.length - 1]!,
  }
}
