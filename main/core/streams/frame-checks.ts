import { isUtf8 } from 'node:buffer'
import type WebSocket from 'ws'

/**
 * Whether a received frame breaks the protocol (binary, over the size cap, or not UTF-8), with
 * the close code and the line for the log; null when it is a text frame to parse.
 */
export function protocolBreach(
  data: WebSocket.RawData | string,
  isBinary: boolean,
  maxFrameBytes: number,
): { code: number; message: string } | null {
  const size = typeof data === 'string' ? data.length : Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength
  // ws checks UTF-8 itself; checked again here for any other socket (cheap, native).
  const badText = !isBinary && Buffer.isBuffer(data) && !isUtf8(data)
  if (!(isBinary || size > maxFrameBytes || badText)) return null
  const code = isBinary ? 1003 : badText ? 1007 : 1009
  const message = isBinary
    ? 'binary frame on the stream; reconnecting'
    : badText
      ? 'stream frame is not valid UTF-8; reconnecting'
      : `stream frame of ${size} bytes over the ${maxFrameBytes}-byte cap; reconnecting`
  return { code, message }
}

/** A text frame's text. */
export function frameText(data: WebSocket.RawData | string): string {
  return typeof data === 'string'
    ? data
    : Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.from(data as ArrayBuffer).toString('utf8')
}
