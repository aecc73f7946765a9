/** POST /info: dispatch by `type`, with the spec's parameter errors (400 vs in-band). */
import { accountHandlers } from './info-accounts'
import { marketHandlers } from './info-market'
import { orderHandlers } from './info-orders'
import { InfoError, infoError, type InfoCtx, type InfoHandlers, type Obj } from './info-params'
import type { HttpResult } from './types'

export { infoError, type InfoCtx } from './info-params'

const handlers: InfoHandlers = { ...marketHandlers, ...accountHandlers, ...orderHandlers }

export const MAX_INFO_BODY_BYTES = 64 * 1024

/** Parses (when given text) and dispatches one /info body. Rate limiting is the caller's. */
export function dispatchInfo(ctx: InfoCtx, body: unknown): HttpResult {
  let parsed: unknown = body
  if (typeof body === 'string') {
    if (Buffer.byteLength(body, 'utf8') > MAX_INFO_BODY_BYTES) return infoError(413, 'RequestTooLarge', 'request body is over 64 KiB')
    try {
      parsed = JSON.parse(body)
    } catch {
      return infoError(400, 'InvalidInfoRequest', 'body is not valid JSON')
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return infoError(400, 'InvalidInfoRequest', 'body must be a JSON object')
  const b = parsed as Obj
  if (typeof b.type !== 'string') return infoError(400, 'InvalidInfoRequest', 'type must be a string')
  const h = Object.prototype.hasOwnProperty.call(handlers, b.type) ? handlers[b.type] : undefined
  if (!h) return infoError(400, 'UnsupportedInfoType', `unsupported info type "${b.type}"`)
  try {
    return h(ctx, b)
  } catch (e) {
    if (e instanceof InfoError) return infoError(400, e.code, e.message)
    throw e
  }
}
