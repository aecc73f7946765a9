import * as v from 'valibot'
import { DeskError } from '../errors/desk-error'
import { parseJsonLossless } from '../exchange/info/lossless-json'
import { address, cloid, decimalStr, nonNegInt, sint, timeMs, uint } from '../exchange/info/fields'

/**
 * Push frames of the `/ws` socket that the desk consumes, validated with the same lossless
 * number handling as /info (tid and oid can exceed 2^53). Channels the desk does not use are
 * passed through as `other` without validation of their payload.
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

const SCHEMAS = { userFills: UserFillsData, spotState: SpotStateData, spotCreditState: SpotCreditStateData, openOrders: OpenOrdersData } as const

export function parseFrame(text: string): Frame {
  const raw = parseJsonLossless(text)
  if (typeof raw !== 'object' || raw === null || typeof (raw as { channel?: unknown }).channel !== 'string') {
    throw new DeskError('StreamFrameMalformed', 'a stream frame has no channel')
  }
  const { channel, data } = raw as { channel: string; data?: unknown }
  if (channel === 'pong') return { channel }
  if (channel === 'error') return { channel, data: typeof data === 'string' ? data : JSON.stringify(data) }
  if (channel === 'subscriptionResponse') return { channel, data }
  const schema = (SCHEMAS as Record<string, v.GenericSchema | undefined>)[channel]
  if (!schema) return { channel: 'other', name: channel, data }
  const r = v.safeParse(schema, data)
  if (!r.success) {
    const path = v.getDotPath(r.issues[0]) ?? ''
    throw new DeskError('StreamFrameMalformed', `${channel} frame: ${path ? path + ': ' : ''}${r.issues[0].message}`, { channel, path })
  }
  return { channel, data: r.output } as Frame
}
