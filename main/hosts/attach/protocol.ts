/**
 * The attach socket's protocol: one JSON document per line, both ways.
 *   desk → core   { id, channel, args }
 *   core → desk   { type: 'hello', pid, version } on connect
 *                 { type: 'result', id, result }   (the dispatcher's Result, errors as data)
 *                 { type: 'event', event, payload } (pushed core events)
 *                 { type: 'error', error }          (protocol violation; the connection closes)
 * Lines are bounded; bigints travel as decimal strings.
 */
import type { ErrorData, Result } from '../../contract/types'

/** No request or answer is near this; a longer line is a mistake or an attack. */
export const MAX_LINE_BYTES = 1024 * 1024

export interface AttachRequest {
  id: string
  channel: string
  args: unknown
}

export type AttachMessage =
  | { type: 'hello'; pid: number; version: string }
  | { type: 'result'; id: string; result: Result<unknown> }
  | { type: 'event'; event: string; payload: unknown }
  | { type: 'error'; error: ErrorData }

export function encodeLine(message: unknown): string {
  return JSON.stringify(message, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) + '\n'
}

/** A request line, or null when it is not one (not JSON, wrong shape). */
export function parseRequest(line: string): AttachRequest | null {
  let j: unknown
  try {
    j = JSON.parse(line)
  } catch {
    return null
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j)) return null
  const r = j as Record<string, unknown>
  if (typeof r.id !== 'string' || r.id.length === 0 || r.id.length > 64 || typeof r.channel !== 'string' || r.channel.length > 100)
    return null
  return { id: r.id, channel: r.channel, args: r.args }
}

/**
 * Splits a byte stream into lines, refusing a line longer than `max` (before buffering it all).
 * `onLine` gets each complete line; `onOverflow` is called once and the splitter stops.
 */
export function lineSplitter(onLine: (line: string) => void, onOverflow: () => void, max = MAX_LINE_BYTES): (chunk: Buffer) => void {
  let parts: Buffer[] = []
  let size = 0
  let dead = false
  return (chunk) => {
    if (dead) return
    let start = 0
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, nl)
      if (size + piece.length > max) {
        dead = true
        return onOverflow()
      }
      const line = Buffer.concat([...parts, piece]).toString('utf8')
      parts = []
      size = 0
      start = nl + 1
      if (line.trim() !== '') onLine(line)
      if (dead) return
    }
    const rest = chunk.subarray(start)
    if (size + rest.length > max) {
      dead = true
      return onOverflow()
    }
    if (rest.length > 0) {
      parts.push(Buffer.from(rest))
      size += rest.length
    }
  }
}
