import { concat, keccak256, type Hex } from 'viem'
import { fractionDigits } from '../../main/core/money/decimal'
import {
  ADDRESS_RE,
  CLOID_RE,
  DECIMAL_U64,
  DISPLAY_DECIMAL,
  schemeFor,
  type BatchItem,
  type OrderAction,
  type Replacement,
  type TradeAction,
  type TradeEnvelope,
} from '../../main/core/wire/actions'
import { encodeLegacyPayload } from '../../main/core/wire/legacy'
import type { ChainState } from './state'

/**
 * Strict parsing of a POST /trade body into a typed envelope, with the spec's
 * request-shaping codes. Failures here happen before canonical bytes exist: no tx_hash.
 */

export const MAX_TRADE_BODY_BYTES = 256 * 1024

const ENVELOPE_KEYS = new Set(['action', 'nonce', 'agent_epoch', 'expires_after_ms', 'auth_scheme', 'signature', 'signatures'])
const U64_MAX = (1n << 64n) - 1n
const U128_MAX = (1n << 128n) - 1n

export class ShapeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export interface ParsedEnvelope {
  envelope: TradeEnvelope
  action: TradeAction
  nonce: bigint
  agentEpoch: bigint | undefined
  expiresAfterMs: bigint | undefined
  scheme: 'legacy' | 'eip712'
  payload: Uint8Array
  txHash: Hex
}

type Obj = Record<string, unknown>

function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x)
}

function only(o: Obj, keys: string[], what: string): void {
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw new ShapeError('InvalidJson', `unknown field "${k}" in ${what}`)
}

function u64(x: unknown, field: string, code = 'InvalidJson'): string {
  if (typeof x !== 'string' || !DECIMAL_U64.test(x) || BigInt(x) > U64_MAX)
    throw new ShapeError(code, `${field} must be a decimal u64 string`)
  return x
}

function u128(x: unknown, field: string): string {
  if (typeof x !== 'string' || !DECIMAL_U64.test(x) || BigInt(x) > U128_MAX)
    throw new ShapeError('InvalidJson', `${field} must be a decimal integer string`)
  return x
}

function address(x: unknown, field: string, code = 'InvalidJson'): `0x${string}` {
  if (typeof x !== 'string' || !ADDRESS_RE.test(x)) throw new ShapeError(code, `${field} must be a 20-byte 0x address`)
  return x.toLowerCase() as `0x${string}`
}

function pick<T extends string>(x: unknown, values: readonly T[], field: string): T {
  if (typeof x !== 'string' || !(values as readonly string[]).includes(x))
    throw new ShapeError('InvalidJson', `${field} must be one of ${values.join(', ')}`)
  return x as T
}

function decimal(x: unknown, field: string): string {
  if (typeof x !== 'string' || !DISPLAY_DECIMAL.test(x)) throw new ShapeError('InvalidJson', `${field} must be a decimal string`)
  return x
}

function optCloid(x: unknown): string | undefined {
  if (x === undefined) return undefined
  if (typeof x !== 'string' || !CLOID_RE.test(x)) throw new ShapeError('InvalidCloid', 'cloid must be 0x + 16 bytes hex')
  return x
}

function reqCloid(x: unknown): string {
  if (x === undefined || x === null) throw new ShapeError('MissingCloid', 'cloid is required for this action')
  return optCloid(x)!
}

function slot(x: unknown): number {
  if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > 3)
    throw new ShapeError('InvalidAgentSlot', 'slot_id must be an integer 0 to 3')
  return x
}

function orderFields(o: Obj): Omit<Replacement, 'cloid'> {
  return {
    side: pick(o.side, ['bid', 'ask', 'buy', 'sell'] as const, 'side'),
    order_type: pick(o.order_type, ['limit', 'market'] as const, 'order_type'),
    tif: pick(o.tif, ['gtc', 'ioc', 'fok', 'alo'] as const, 'tif'),
    price: decimal(o.price, 'price'),
    quantity: decimal(o.quantity, 'quantity'),
  }
}

function target(o: Obj): { oid?: string; cloid?: string } {
  const out: { oid?: string; cloid?: string } = {}
  if (o.oid !== undefined) out.oid = u64(o.oid, 'oid')
  const c = optCloid(o.cloid)
  if (c !== undefined) out.cloid = c
  if (out.oid === undefined && out.cloid === undefined) throw new ShapeError('MissingOidOrCloid', 'oid or cloid is required')
  return out
}

function parseItem(a: Obj): BatchItem {
  switch (a.type) {
    case 'order': {
      only(a, ['type', 'market_id', 'side', 'order_type', 'tif', 'price', 'quantity', 'cloid'], 'order')
      const out: OrderAction = { type: 'order', market_id: u64(a.market_id, 'market_id'), ...orderFields(a) }
      const c = optCloid(a.cloid)
      if (c !== undefined) out.cloid = c
      return out
    }
    case 'cancel':
      only(a, ['type', 'market_id', 'oid', 'cloid'], 'cancel')
      return { type: 'cancel', market_id: u64(a.market_id, 'market_id'), ...target(a) }
    case 'cancelAll':
      only(a, ['type', 'market_id'], 'cancelAll')
      return { type: 'cancelAll', market_id: u64(a.market_id, 'market_id') }
    case 'modify': {
      only(a, ['type', 'market_id', 'oid', 'cloid', 'replacement'], 'modify')
      const r = a.replacement
      if (!isObj(r)) throw new ShapeError('InvalidJson', 'replacement must be an object')
      only(r, ['side', 'order_type', 'tif', 'price', 'quantity', 'cloid'], 'replacement')
      const replacement: Replacement = orderFields(r)
      if (r.cloid !== undefined) replacement.cloid = r.cloid === null ? null : optCloid(r.cloid)!
      return { type: 'modify', market_id: u64(a.market_id, 'market_id'), ...target(a), replacement }
    }
    default:
      throw new ShapeError('InvalidJson', 'batch items must be order, cancel, cancelAll or modify')
  }
}

export function parseAction(a: unknown): TradeAction {
  if (!isObj(a)) throw new ShapeError('InvalidJson', 'action must be an object')
  switch (a.type) {
    case 'order':
    case 'cancel':
    case 'cancelAll':
    case 'modify':
      return parseItem(a)
    case 'batch': {
      only(a, ['type', 'items'], 'batch')
      if (!Array.isArray(a.items)) throw new ShapeError('InvalidJson', 'items must be an array')
      if (a.items.length < 1 || a.items.length > 10)
        throw new ShapeError('EncodeLengthOverflow', `batch must hold 1 to 10 items, got ${a.items.length}`)
      return {
        type: 'batch',
        items: a.items.map((it) => {
          if (!isObj(it)) throw new ShapeError('InvalidJson', 'batch item must be an object')
          return parseItem(it)
        }),
      }
    }
    case 'transfer':
      only(a, ['type', 'to', 'asset_id', 'amount', 'cloid'], 'transfer')
      return {
        type: 'transfer',
        cloid: reqCloid(a.cloid),
        to: address(a.to, 'to'),
        asset_id: u64(a.asset_id, 'asset_id', 'InvalidAssetId'),
        amount: u128(a.amount, 'amount'),
      }
    case 'activateFor':
      only(a, ['type', 'asset_id', 'target_address', 'cloid'], 'activateFor')
      return {
        type: 'activateFor',
        cloid: reqCloid(a.cloid),
        asset_id: u64(a.asset_id, 'asset_id', 'InvalidAssetId'),
        target_address: address(a.target_address, 'target_address'),
      }
    case 'withdraw':
      only(a, ['type', 'asset_id', 'amount', 'dst_chain_id', 'dst_address', 'withdraw_nonce', 'cloid'], 'withdraw')
      return {
        type: 'withdraw',
        cloid: reqCloid(a.cloid),
        asset_id: u64(a.asset_id, 'asset_id', 'InvalidAssetId'),
        amount: u128(a.amount, 'amount'),
        dst_chain_id: u64(a.dst_chain_id, 'dst_chain_id'),
        dst_address: address(a.dst_address, 'dst_address'),
        withdraw_nonce: u64(a.withdraw_nonce, 'withdraw_nonce'),
      }
    case 'settle':
      only(a, ['type', 'asset_id', 'amount', 'cash_account', 'cloid'], 'settle')
      return {
        type: 'settle',
        cloid: reqCloid(a.cloid),
        cash_account: address(a.cash_account, 'cash_account', 'InvalidCashAccount'),
        asset_id: u64(a.asset_id, 'asset_id', 'InvalidAssetId'),
        amount: u128(a.amount, 'amount'),
      }
    case 'repay':
      only(a, ['type', 'asset_id', 'amount', 'margin_account', 'cloid'], 'repay')
      return {
        type: 'repay',
        cloid: reqCloid(a.cloid),
        margin_account: address(a.margin_account, 'margin_account', 'InvalidMarginAccount'),
        asset_id: u64(a.asset_id, 'asset_id', 'InvalidAssetId'),
        amount: u128(a.amount, 'amount'),
      }
    case 'approveAgent':
      only(a, ['type', 'slot_id', 'agent'], 'approveAgent')
      return { type: 'approveAgent', slot_id: slot(a.slot_id), agent: address(a.agent, 'agent', 'InvalidAgent') }
    case 'revokeAgent':
      only(a, ['type', 'slot_id'], 'revokeAgent')
      return { type: 'revokeAgent', slot_id: slot(a.slot_id) }
    default:
      throw new ShapeError('InvalidJson', 'unknown action type')
  }
}

/** Price/quantity with more decimals than the market allows are refused, never rounded. */
function checkPrecision(state: ChainState, item: BatchItem): void {
  const check = (marketId: string, o: { price: string; quantity: string }) => {
    const m = state.markets.get(Number(marketId))
    if (!m) return // unknown market: a `marketnotfound` leaf at execution
    if (fractionDigits(o.price) > m.price_decimals || fractionDigits(o.quantity) > m.base_quantity_decimals) {
      throw new ShapeError('InvalidQuantityPrecision', 'price or quantity has more decimals than the market allows')
    }
  }
  if (item.type === 'order') check(item.market_id, item)
  if (item.type === 'modify') check(item.market_id, item.replacement)
}

function envU64(x: unknown, field: string): bigint | undefined {
  if (x === undefined) return undefined
  return BigInt(u64(x, field))
}

export function parseEnvelope(raw: string, state: ChainState, chainId: number): ParsedEnvelope {
  let body: unknown
  try {
    body = JSON.parse(raw)
  } catch {
    throw new ShapeError('InvalidJson', 'body is not valid JSON')
  }
  if (!isObj(body)) throw new ShapeError('InvalidJson', 'body must be a JSON object')
  for (const k of Object.keys(body)) if (!ENVELOPE_KEYS.has(k)) throw new ShapeError('InvalidJson', `unknown envelope field "${k}"`)
  const hasSig = body.signature !== undefined
  const hasSigs = body.signatures !== undefined
  if (hasSig === hasSigs) throw new ShapeError('AmbiguousAuthFields', 'exactly one of signature and signatures is required')
  if (hasSigs) throw new ShapeError('SignaturesNotAllowedForAction', 'signatures (multisig) is not allowed for public actions')
  if (body.auth_scheme !== undefined && body.auth_scheme !== 'legacy' && body.auth_scheme !== 'eip712')
    throw new ShapeError('InvalidJson', 'auth_scheme must be legacy or eip712')

  let nonce: bigint
  if (typeof body.nonce === 'number') {
    if (!Number.isSafeInteger(body.nonce) || body.nonce < 0) throw new ShapeError('InvalidJson', 'nonce must be an unsigned integer')
    nonce = BigInt(body.nonce)
  } else {
    nonce = BigInt(u64(body.nonce, 'nonce'))
  }
  const agentEpoch = envU64(body.agent_epoch, 'agent_epoch')
  const expiresAfterMs = envU64(body.expires_after_ms, 'expires_after_ms')

  const action = parseAction(body.action)
  const required = schemeFor(action.type)
  const scheme = (body.auth_scheme as 'legacy' | 'eip712' | undefined) ?? 'legacy'
  if (required === 'eip712' && scheme !== 'eip712')
    throw new ShapeError('LegacySignatureNotAccepted', `${action.type} must be signed with auth_scheme eip712`)
  if (required === 'legacy' && scheme !== 'legacy')
    throw new ShapeError('MalformedTx', `${action.type} must be signed with the legacy scheme`)
  if (required === 'eip712' && agentEpoch !== undefined)
    throw new ShapeError('Eip712AgentEpochNotAllowed', 'eip712 actions are owner-signed and carry no agent_epoch')
  if (action.type === 'batch') action.items.forEach((it) => checkPrecision(state, it))
  else if (action.type === 'order' || action.type === 'modify') checkPrecision(state, action)

  if (typeof body.signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(body.signature))
    throw new ShapeError('BadSignature', 'signature must be 0x + 65 bytes hex')
  const signature = body.signature as Hex

  const payload = encodeLegacyPayload({ action, nonce, agentEpoch, expiresAfterMs, chainId })
  const envelope: TradeEnvelope = { action, nonce: nonce.toString(), signature }
  if (agentEpoch !== undefined) envelope.agent_epoch = agentEpoch.toString()
  if (expiresAfterMs !== undefined) envelope.expires_after_ms = expiresAfterMs.toString()
  if (body.auth_scheme !== undefined) envelope.auth_scheme = scheme
  return { envelope, action, nonce, agentEpoch, expiresAfterMs, scheme, payload, txHash: keccak256(concat([payload, signature])) }
}
