/** POST /info, shared by its handlers: the request context, the parameter readers and their errors (400 vs in-band). */
import type { Address } from 'viem'
import { RETAINED_BLOCKS } from './defaults'
import type { ChainState } from './state'
import type { HttpResult } from './types'

export interface InfoCtx {
  state: ChainState
  nowMs: number
  staleMarks: boolean
  oracle: { status: 'available' } | { status: 'unavailable'; reason_code: string }
}

export type Obj = Record<string, unknown>

export class InfoError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export function infoError(status: number, code: string, message: string): HttpResult {
  return { status, body: { error: { code, message } } }
}

export const ok = (body: unknown): HttpResult => ({ status: 200, body })

export function user(x: unknown, field = 'user'): Address {
  if (typeof x !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(x))
    throw new InfoError('InvalidInfoRequest', `${field} must be a 0x-prefixed 20-byte address`)
  return x.toLowerCase() as Address
}

/** Non-negative integer given as a JSON number or a decimal string; null when malformed. */
export function intParam(x: unknown, max = Number.MAX_SAFE_INTEGER): number | null {
  if (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 && x <= max) return x
  if (typeof x === 'string' && /^(0|[1-9][0-9]*)$/.test(x) && Number(x) <= max) return Number(x)
  return null
}

export function marketIdParam(x: unknown, allowAll = false): number {
  if (allowAll && (x === -1 || x === '-1')) return -1
  const id = intParam(x, 0xffffffff)
  if (id === null) throw new InfoError('InvalidMarketId', 'market_id must be an integer market id')
  return id
}

export function cloidParam(x: unknown): string {
  if (typeof x !== 'string' || !/^0x[0-9a-fA-F]{32}$/.test(x)) throw new InfoError('InvalidCloid', 'cloid must be 0x + 16 bytes hex')
  return x.toLowerCase()
}

export function earliest(state: ChainState): number {
  return state.earliestRetainedHeight(RETAINED_BLOCKS)
}

/** One table of /info handlers, by request `type`. */
export type InfoHandlers = Record<string, (ctx: InfoCtx, b: Obj) => HttpResult>
