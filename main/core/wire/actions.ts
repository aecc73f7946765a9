import * as v from 'valibot'

/**
 * Trading action bodies exactly as sent to POST /trade, and the request envelope.
 * Ids and raw amounts are decimal strings (u64 / u128), `side` accepts the `buy`/`sell`
 * aliases, `cloid` is `0x` + 32 hex. `slot_id` is a small JSON integer (0..3).
 */

export const DECIMAL_U64 = /^(0|[1-9][0-9]*)$/
export const DISPLAY_DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/
export const CLOID_RE = /^0x[0-9a-fA-F]{32}$/
export const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/
export const SIGNATURE_RE = /^0x[0-9a-fA-F]{130}$/

const U64_MAX = (1n << 64n) - 1n
const U128_MAX = (1n << 128n) - 1n

const u64Str = v.pipe(
  v.string(),
  v.regex(DECIMAL_U64, 'must be a decimal integer string'),
  v.check((s) => BigInt(s) <= U64_MAX, 'exceeds u64'),
)
const u128Str = v.pipe(
  v.string(),
  v.regex(DECIMAL_U64, 'must be a decimal integer string'),
  v.check((s) => BigInt(s) <= U128_MAX, 'exceeds u128'),
)
const displayDecimal = v.pipe(v.string(), v.regex(DISPLAY_DECIMAL, 'must be a plain decimal string'))
const cloid = v.pipe(v.string(), v.regex(CLOID_RE, 'must be 0x + 32 hex digits'))
const address = v.pipe(v.string(), v.regex(ADDRESS_RE, 'must be a 20-byte 0x address'))

export const SideSchema = v.picklist(['bid', 'ask', 'buy', 'sell'])
export const OrderTypeSchema = v.picklist(['limit', 'market'])
export const TifSchema = v.picklist(['gtc', 'ioc', 'fok', 'alo'])

export type Side = v.InferOutput<typeof SideSchema>
export type OrderType = v.InferOutput<typeof OrderTypeSchema>
export type Tif = v.InferOutput<typeof TifSchema>

/** `buy` is `bid`, `sell` is `ask`. */
export function normalizeSide(side: Side): 'bid' | 'ask' {
  return side === 'bid' || side === 'buy' ? 'bid' : 'ask'
}

export const OrderActionSchema = v.strictObject({
  type: v.literal('order'),
  market_id: u64Str,
  side: SideSchema,
  order_type: OrderTypeSchema,
  tif: TifSchema,
  price: displayDecimal,
  quantity: displayDecimal,
  cloid: v.optional(cloid),
})

export const CancelActionSchema = v.pipe(
  v.strictObject({
    type: v.literal('cancel'),
    market_id: u64Str,
    oid: v.optional(u64Str),
    cloid: v.optional(cloid),
  }),
  v.check((a) => a.oid !== undefined || a.cloid !== undefined, 'oid or cloid is required'),
)

export const CancelAllActionSchema = v.strictObject({
  type: v.literal('cancelAll'),
  market_id: u64Str,
})

export const ReplacementSchema = v.strictObject({
  side: SideSchema,
  order_type: OrderTypeSchema,
  tif: TifSchema,
  price: displayDecimal,
  quantity: displayDecimal,
  cloid: v.optional(v.nullable(cloid)),
})

export const ModifyActionSchema = v.pipe(
  v.strictObject({
    type: v.literal('modify'),
    market_id: u64Str,
    oid: v.optional(u64Str),
    cloid: v.optional(cloid),
    replacement: ReplacementSchema,
  }),
  v.check((a) => a.oid !== undefined || a.cloid !== undefined, 'oid or cloid is required'),
)

export const BatchItemSchema = v.variant('type', [OrderActionSchema, CancelActionSchema, CancelAllActionSchema, ModifyActionSchema])

export const BatchActionSchema = v.strictObject({
  type: v.literal('batch'),
  items: v.pipe(v.array(BatchItemSchema), v.minLength(1), v.maxLength(10)),
})

export const TransferActionSchema = v.strictObject({
  type: v.literal('transfer'),
  to: address,
  asset_id: u64Str,
  amount: u128Str,
  cloid,
})

export const ActivateForActionSchema = v.strictObject({
  type: v.literal('activateFor'),
  asset_id: u64Str,
  target_address: address,
  cloid,
})

export const WithdrawActionSchema = v.strictObject({
  type: v.literal('withdraw'),
  asset_id: u64Str,
  amount: u128Str,
  dst_chain_id: u64Str,
  dst_address: address,
  withdraw_nonce: u64Str,
  cloid,
})

export const SettleActionSchema = v.strictObject({
  type: v.literal('settle'),
  asset_id: u64Str,
  amount: u128Str,
  cash_account: address,
  cloid,
})

export const RepayActionSchema = v.strictObject({
  type: v.literal('repay'),
  asset_id: u64Str,
  amount: u128Str,
  margin_account: address,
  cloid,
})

const slotId = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(3))

export const ApproveAgentActionSchema = v.strictObject({
  type: v.literal('approveAgent'),
  slot_id: slotId,
  agent: address,
})

export const RevokeAgentActionSchema = v.strictObject({
  type: v.literal('revokeAgent'),
  slot_id: slotId,
})

export const TradeActionSchema = v.variant('type', [
  OrderActionSchema,
  CancelActionSchema,
  CancelAllActionSchema,
  ModifyActionSchema,
  BatchActionSchema,
  TransferActionSchema,
  ActivateForActionSchema,
  WithdrawActionSchema,
  SettleActionSchema,
  RepayActionSchema,
  ApproveAgentActionSchema,
  RevokeAgentActionSchema,
])

export type OrderAction = v.InferOutput<typeof OrderActionSchema>
export type CancelAction = v.InferOutput<typeof CancelActionSchema>
export type CancelAllAction = v.InferOutput<typeof CancelAllActionSchema>
export type Replacement = v.InferOutput<typeof ReplacementSchema>
export type ModifyAction = v.InferOutput<typeof ModifyActionSchema>
export type BatchItem = v.InferOutput<typeof BatchItemSchema>
export type BatchAction = v.InferOutput<typeof BatchActionSchema>
export type TransferAction = v.InferOutput<typeof TransferActionSchema>
export type ActivateForAction = v.InferOutput<typeof ActivateForActionSchema>
export type WithdrawAction = v.InferOutput<typeof WithdrawActionSchema>
export type SettleAction = v.InferOutput<typeof SettleActionSchema>
export type RepayAction = v.InferOutput<typeof RepayActionSchema>
export type ApproveAgentAction = v.InferOutput<typeof ApproveAgentActionSchema>
export type RevokeAgentAction = v.InferOutput<typeof RevokeAgentActionSchema>

export type LegacyAction = OrderAction | CancelAction | CancelAllAction | ModifyAction | BatchAction
export type Eip712Action =
  TransferAction | ActivateForAction | WithdrawAction | SettleAction | RepayAction | ApproveAgentAction | RevokeAgentAction
export type TradeAction = LegacyAction | Eip712Action
export type TradeActionType = TradeAction['type']

export const LEGACY_ACTION_TYPES = ['order', 'cancel', 'cancelAll', 'modify', 'batch'] as const

export type AuthScheme = 'legacy' | 'eip712'

/** The signing scheme the service requires for an action type. */
export function schemeFor(actionType: TradeActionType): AuthScheme {
  return (LEGACY_ACTION_TYPES as readonly string[]).includes(actionType) ? 'legacy' : 'eip712'
}

/** The POST /trade body. `nonce` is a decimal string (an unsigned JSON integer is also accepted by the service). */
export interface TradeEnvelope {
  action: TradeAction
  nonce: string | number
  agent_epoch?: string
  expires_after_ms?: string
  auth_scheme?: AuthScheme
  signature?: `0x${string}`
  signatures?: unknown[]
}

export const TradeEnvelopeSchema = v.strictObject({
  action: TradeActionSchema,
  nonce: v.union([u64Str, v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER))]),
  agent_epoch: v.optional(u64Str),
  expires_after_ms: v.optional(u64Str),
  auth_scheme: v.optional(v.picklist(['legacy', 'eip712'])),
  signature: v.optional(v.pipe(v.string(), v.regex(SIGNATURE_RE, 'must be 0x + 65 bytes hex'))),
  signatures: v.optional(v.array(v.unknown())),
})

/** Response envelope of POST /trade. */
export interface TradeResponse {
  submission_status: 'accepted' | 'rejected' | 'timeout'
  tx_hash?: `0x${string}`
  error?: { code: string; retry_after_ms?: number }
  response?: TradeResponseBody
}

export type OrderLeaf =
  | { open: { oid: number; cloid: string | null } }
  | { filled: { total_sz: string; avg_px: string; oid: number; cloid: string | null } }
  | { cancelled: { oid: number; cloid: string | null } }
  | { error: string }

export type TradeResponseBody =
  | { type: 'order' | 'cancel' | 'modify'; status: OrderLeaf }
  | { type: 'cancelAll'; statuses: OrderLeaf[] }
  | { type: 'batch'; statuses: BatchItemResponse[] }
  /** non-order actions; `status` carries the lowercase code when the action failed at execution */
  | { type: 'default'; status?: { error: string } }

export type BatchItemResponse = { type: 'order' | 'cancel' | 'modify'; status: OrderLeaf } | { type: 'cancelAll'; statuses: OrderLeaf[] }
