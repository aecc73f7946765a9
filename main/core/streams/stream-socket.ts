import WebSocket from 'ws'

/**
 * What the connection needs of a socket: the `ws` client, or a fake in tests. Events used:
 * open, message (data, isBinary), error, close.
 */
export interface SocketLike {
  readonly readyState: number
  on(event: 'open', fn: () => void): unknown
  on(event: 'message', fn: (data: WebSocket.RawData | string, isBinary: boolean) => void): unknown
  on(event: 'error', fn: (err: Error) => void): unknown
  on(event: 'close', fn: (code: number, reason: Buffer) => void): unknown
  send(data: string, cb?: (err?: Error) => void): void
  close(code?: number, reason?: string): void
  terminate(): void
  removeAllListeners(): unknown
}

export type SocketFactory = (url: string, opts: { maxPayload: number }) => SocketLike

/** `readyState` of an open socket. */
export const OPEN = 1

/** The `ws` client. */
export const defaultSocket: SocketFactory = (url, { maxPayload }) =>
  // ws checks UTF-8 of text frames and the size cap itself: a breach emits 'error', then 'close'.
  new WebSocket(url, { perMessageDeflate: false, maxPayload }) as unknown as SocketLike

/** Shared by a pool's connections: spaces new connections (the service counts 30 per minute per IP). */
export interface ConnectBudget {
  /** ms to wait before the next connection attempt is allowed (0 = now) */
  delayMs(now: number): number
  record(now: number): void
}
