import * as v from 'valibot'
import { DeskError } from '../errors/desk-error'
import { parseJsonLossless } from '../exchange/info/lossless-json'
import { address, cloid, decimalStr, nonNegInt, sint, timeMs, uint } from '../exchange/info/fields'
import { fastFrameData, type ValidatedChannel } from './fast-frames'

/**
 * Push frames of the `/ws` socket that the desk consumes, validated with the same lossless
 * number handling as /info (tid and oid can exceed 2^53). Channels the desk does not use are
 * passed through as `other` without validation of their payload.
 *
 * The schemas below are the definition; the hot channels first go through a hand-written
 * check (`fast-frames.ts`) that accepts a subset of what they accept and produces the same
 * output. Anything it does not accept is parsed again and judged by the schema, so an error
 * reads the same as before and nothing the schema allows is refused.
 */
export const WsFillSchema = v.looseObject({
  coin: v.string(),
  px: decimalStr,
  sz: decimalStr,
  side: v.picklist(['B', 'A']),
  time: timeMs,
  oid: v.nullish(uint),
  crossed: v.optional(v.boolean()),
  fee: v.optional(decimalStr),
  feeToken: v.optional(v.union([v.string(), v.number()])),
  tid: uint,
  cloid: v.nullish(cloid),
})
export type WsFill = v.InferOutput<typeof WsFillSchema>

const WsOrderSchema = v.looseObject({
  coin: v.string(),
  side: v.string(),
  limitPx: decimalStr,
  sz: decimalStr,
  oid: uint,
  timestamp: v.optional(timeMs),
  origSz: decimalStr,
  cloid: v.nullish(cloid),
})
export type WsOrder = v.InferOutput<typeof WsOrderSchema>

const CreditPositionSchema = v.looseObject({
  asset_id: nonNegInt,
  symbol: v.string(),
  actual_display: decimalStr,
  actual_qty: sint,
  pending_exposure_display: decimalStr,
  pending_exposure_qty: sint,
})

export const UserFillsData = v.looseObject({ user: address, fills: v.array(WsFillSchema), isSnapshot: v.optional(v.boolean()) })
export const SpotStateData = v.looseObject({
  user: address,
  balances: v.array(v.looseObject({ coin: v.string(), token: nonNegInt, total: decimalStr, hold: decimalStr })),
})
export const SpotCreditStateData = v.looseObject({
  user: address,
  isSnapshot: v.optional(v.boolean()),
  authorized: v.boolean(),
  status: v.optional(v.picklist(['active', 'frozen'])),
  creditUsdAtoms: v.optional(sint),
  positions: v.array(CreditPositionSchema),
})
export const OpenOrdersData = v.looseObject({ user: address, isSnapshot: v.optional(v.boolean()), orders: v.array(WsOrderSchema) })

export type Frame =
  | { channel: 'userFills'; data: v.InferOutput<typeof UserFillsData> }
  | { channel: 'spotState'; data: v.InferOutput<typeof SpotStateData> }
  | { channel: 'spotCreditState'; data: v.InferOutput<typeof SpotCreditStateData> }
  | { channel: 'openOrders'; data: v.InferOutput<typeof OpenOrdersData> }
  | { channel: 'subscriptionResponse'; data: unknown }
  | { channel: 'pong' }
  | { channel: 'error'; data: string }
  | { channel: 'other'; name: string; data: unknown }

export type { ValidatedChannel }
const SCHEMAS: Record<ValidatedChannel, v.GenericSchema> = {
  userFills: UserFillsData,
  spotState: SpotStateData,
  spotCreditState: SpotCreditStateData,
  openOrders: OpenOrdersData,
}

/** Every channel the service documents (section 6), plus the replies of `post`. Anything else is garbage. */
export const KNOWN_CHANNELS: ReadonlySet<string> = new Set([
  'trades',
  'l2Book',
  'bbo',
  'allMids',
  'userFills',
  'orderUpdates',
  'openOrders',
  'spotState',
  'spotCreditState',
  'subscriptionResponse',
  'pong',
  'error',
  'post',
])

// A 16+ digit integer literal in value position: quoted so JSON.parse keeps it exact. This
// simple form cannot see strings; a hit inside a string always yields invalid JSON (a string
// token directly followed by a digit), which sends the text to the careful parser below.
const BIG_INT_IN_VALUE = /([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g

/** Lossless JSON.parse with a fast path; same result as `parseJsonLossless` on every input. */
export function parseFrameJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(BIG_INT_IN_VALUE, '$1"$2"')) as unknown
  } catch {
    return parseJsonLossless(text)
  }
}

// Channels whose payload never needs more than a safe integer in the normal case: parsed with
// plain JSON.parse first; an integer beyond 2^53 fails their fast check (it must be a safe
// number) and sends the frame through the lossless parse.
const PLAIN_FIRST = /^\{"channel":"(?:spotState|spotCreditState|openOrders|pong|subscriptionResponse)"/

// Fills: only `tid` and `oid` are expected beyond 2^53; quoting just those is much cheaper than
// the general scan. The key's closing quote is unescaped, so the hit is a real key (or ends a
// real string) and the digits are in value position: quoting them is what the general rewrite
// does too. Any other big integer fails the fast check, which sends the frame the general way.
const FILLS_FIRST = /^\{"channel":"userFills"/

/**
 * Quotes every `"tid":` or `"oid":` integer of 16 digits or more that ends at `,` or `}` — the
 * same rewrite as text.replace(/"(tid|oid)":(\d{16,})(?=[,}])/g, '"$1":"$2"') — with indexOf
 * jumps instead of a regular expression tried at every position (a fills frame is mostly other
 * keys), and no new string when nothing needs quoting.
 */
export function quoteBigIds(text: string): string {
  let out = ''
  let from = 0
  let i = text.indexOf('id":')
  while (i !== -1) {
    const c = text.charCodeAt(i - 1)
    let next = i + 4
    // The key's opening quote two characters back, then t or o: "tid": or "oid":
    if (i >= 2 && text.charCodeAt(i - 2) === 34 && (c === 116 || c === 111)) {
      let d = next
      while (d < text.length) {
        const ch = text.charCodeAt(d)
        if (ch < 48 || ch > 57) break
        d++
      }
      const end = text.charCodeAt(d)
      if (d - next >= 16 && (end === 44 || end === 125)) {
        out += text.slice(from, next) + '"' + text.slice(next, d) + '"'
        from = d
      }
      next = d
    }
    i = text.indexOf('id":', next)
  }
  return from === 0 ? text : out + text.slice(from)
}

export function parseFrame(text: string): Frame {
  const fills = FILLS_FIRST.test(text)
  if (fills || PLAIN_FIRST.test(text)) {
    let plain: unknown
    try {
      plain = JSON.parse(fills ? quoteBigIds(text) : text) as unknown
    } catch {
      plain = undefined // not JSON: the lossless parser below reports it
    }
    if (plain !== undefined) {
      const f = frameOf(plain, text, false)
      if (f !== null) return f
    }
  }
  return frameOf(parseFrameJson(text), text, true)!
}

/** null: the plain parse may have rounded an integer the channel needs exactly; parse losslessly. */
function frameOf(raw: unknown, text: string, lossless: boolean): Frame | null {
  if (typeof raw !== 'object' || raw === null || typeof (raw as { channel?: unknown }).channel !== 'string') {
    if (!lossless) return null
    throw new DeskError('StreamFrameMalformed', 'a stream frame has no channel')
  }
  const { channel, data } = raw as { channel: string; data?: unknown }
  if (channel === 'pong') return { channel }
  if (channel === 'error') return { channel, data: typeof data === 'string' ? data : JSON.stringify(data) }
  if (channel === 'subscriptionResponse') return { channel, data }
  const schema = (SCHEMAS as Record<string, v.GenericSchema | undefined>)[channel]
  if (!schema) return lossless ? { channel: 'other', name: channel, data } : null
  // Fast path: converts in place and answers true, or answers false having maybe half-converted.
  if (fastFrameData(channel as ValidatedChannel, data)) return { channel, data } as Frame
  return lossless ? slowFrame(channel as ValidatedChannel, text) : null
}

/** The schema's verdict on a fresh parse of the text (the fast check may have touched the first one). */
function slowFrame(channel: ValidatedChannel, text: string): Frame {
  const { data } = parseJsonLossless(text) as { data?: unknown }
  const r = v.safeParse(SCHEMAS[channel], data)
  if (!r.success) {
    const path = v.getDotPath(r.issues[0]) ?? ''
    throw new DeskError('StreamFrameMalformed', `${channel} frame: ${path ? path + ': ' : ''}${r.issues[0].message}`, { channel, path })
  }
  return { channel, data: r.output } as Frame
}
