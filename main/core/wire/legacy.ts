import { keccak256, type Hex } from 'viem'
import { DeskError } from '../errors/desk-error'
import { normalizeSide, type BatchItem, type Replacement, type TradeAction } from './actions'

/**
 * The "legacy" canonical binary payload (see docs/wire-profile.md). Field order is fixed
 * by the per-action schema below, never by JSON key order; the service rebuilds the same
 * bytes from the parsed JSON and recovers the signer from keccak256(payload).
 *
 *   magic "TDW1" | u8 version=1 | u64 chain_id | u64 nonce
 *   | u8 has_agent_epoch [u64] | u8 has_expires_after_ms [u64] | action
 */

export const LEGACY_MAGIC = new Uint8Array([0x54, 0x44, 0x57, 0x31]) // "TDW1"
export const LEGACY_VERSION = 1

/** One-byte action tags; stable forever (a new action gets a new tag). */
export const ACTION_TAGS = {
  order: 1,
  cancel: 2,
  cancelAll: 3,
  modify: 4,
  batch: 5,
  transfer: 6,
  activateFor: 7,
  withdraw: 8,
  settle: 9,
  repay: 10,
  approveAgent: 11,
  revokeAgent: 12,
} as const

const SIDE_CODES = { bid: 0, ask: 1 } as const
const ORDER_TYPE_CODES = { limit: 0, market: 1 } as const
const TIF_CODES = { gtc: 0, ioc: 1, fok: 2, alo: 3 } as const

const U64_MAX = (1n << 64n) - 1n
const U128_MAX = (1n << 128n) - 1n

export class WireEncodeError extends DeskError {
  constructor(code: 'EncodeLengthOverflow' | 'MalformedTx', message: string, field: string) {
    super(code, message, { field })
  }
}

/** Growable big-endian byte writer. */
class Writer {
  private buf = new Uint8Array(256)
  private len = 0

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.len + n) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.len))
    this.buf = next
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length)
    this.buf.set(b, this.len)
    this.len += b.length
  }

  u8(n: number): void {
    this.ensure(1)
    this.buf[this.len++] = n & 0xff
  }

  u32(n: number): void {
    this.ensure(4)
    new DataView(this.buf.buffer, this.buf.byteOffset).setUint32(this.len, n, false)
    this.len += 4
  }

  uint(value: bigint, width: 8 | 16, field: string): void {
    const max = width === 8 ? U64_MAX : U128_MAX
    if (value < 0n || value > max) throw new WireEncodeError('MalformedTx', `${field} does not fit in u${width * 8}`, field)
    this.ensure(width)
    for (let i = width - 1; i >= 0; i--) {
      this.buf[this.len + i] = Number(value & 0xffn)
      value >>= 8n
    }
    this.len += width
  }

  str(s: string): void {
    const b = new TextEncoder().encode(s)
    this.u32(b.length)
    this.bytes(b)
  }

  hexFixed(hex: string, size: number, field: string): void {
    if (!/^0x[0-9a-fA-F]*$/.test(hex) || hex.length !== 2 + size * 2) {
      throw new WireEncodeError('MalformedTx', `${field} must be 0x + ${size * 2} hex digits`, field)
    }
    const out = new Uint8Array(size)
    for (let i = 0; i < size; i++) out[i] = parseInt(hex.slice(2 + i * 2, 4 + i * 2), 16)
    this.bytes(out)
  }

  done(): Uint8Array {
    return this.buf.slice(0, this.len)
  }
}

function decimalToBigint(s: string | number | bigint, field: string): bigint {
  if (typeof s === 'bigint') return s
  if (typeof s === 'number') {
    if (!Number.isSafeInteger(s) || s < 0) throw new WireEncodeError('MalformedTx', `${field} must be a non-negative integer`, field)
    return BigInt(s)
  }
  if (!/^(0|[1-9][0-9]*)$/.test(s)) throw new WireEncodeError('MalformedTx', `${field} must be a decimal integer string`, field)
  return BigInt(s)
}

function u64(w: Writer, s: string | number | bigint, field: string): void {
  w.uint(decimalToBigint(s, field), 8, field)
}

function u128(w: Writer, s: string, field: string): void {
  w.uint(decimalToBigint(s, field), 16, field)
}

function optional<T>(w: Writer, value: T | undefined | null, write: (x: T) => void): void {
  if (value === undefined || value === null) {
    w.u8(0)
  } else {
    w.u8(1)
    write(value)
  }
}

function orderBody(
  w: Writer,
  o: {
    side: Replacement['side']
    order_type: Replacement['order_type']
    tif: Replacement['tif']
    price: string
    quantity: string
    cloid?: string | null | undefined
  },
): void {
  w.u8(SIDE_CODES[normalizeSide(o.side)])
  w.u8(ORDER_TYPE_CODES[o.order_type])
  w.u8(TIF_CODES[o.tif])
  w.str(o.price)
  w.str(o.quantity)
  optional(w, o.cloid, (c) => w.hexFixed(c, 16, 'cloid'))
}

function writeTradingItem(w: Writer, a: BatchItem): void {
  w.u8(ACTION_TAGS[a.type])
  switch (a.type) {
    case 'order':
      u64(w, a.market_id, 'market_id')
      orderBody(w, a)
      return
    case 'cancel':
      u64(w, a.market_id, 'market_id')
      optional(w, a.oid, (x) => u64(w, x, 'oid'))
      optional(w, a.cloid, (x) => w.hexFixed(x, 16, 'cloid'))
      return
    case 'cancelAll':
      u64(w, a.market_id, 'market_id')
      return
    case 'modify':
      u64(w, a.market_id, 'market_id')
      optional(w, a.oid, (x) => u64(w, x, 'oid'))
      optional(w, a.cloid, (x) => w.hexFixed(x, 16, 'cloid'))
      orderBody(w, a.replacement)
      return
  }
}

function writeAction(w: Writer, a: TradeAction): void {
  switch (a.type) {
    case 'order':
    case 'cancel':
    case 'cancelAll':
    case 'modify':
      writeTradingItem(w, a)
      return
    case 'batch':
      if (a.items.length < 1 || a.items.length > 10) {
        throw new WireEncodeError('EncodeLengthOverflow', `batch must hold 1 to 10 items, got ${a.items.length}`, 'items')
      }
      w.u8(ACTION_TAGS.batch)
      w.u8(a.items.length)
      for (const item of a.items) writeTradingItem(w, item)
      return
    case 'transfer':
      w.u8(ACTION_TAGS.transfer)
      w.hexFixed(a.to, 20, 'to')
      u64(w, a.asset_id, 'asset_id')
      u128(w, a.amount, 'amount')
      w.hexFixed(a.cloid, 16, 'cloid')
      return
    case 'activateFor':
      w.u8(ACTION_TAGS.activateFor)
      u64(w, a.asset_id, 'asset_id')
      w.hexFixed(a.target_address, 20, 'target_address')
      w.hexFixed(a.cloid, 16, 'cloid')
      return
    case 'withdraw':
      w.u8(ACTION_TAGS.withdraw)
      u64(w, a.asset_id, 'asset_id')
      u128(w, a.amount, 'amount')
      u64(w, a.dst_chain_id, 'dst_chain_id')
      w.hexFixed(a.dst_address, 20, 'dst_address')
      u64(w, a.withdraw_nonce, 'withdraw_nonce')
      w.hexFixed(a.cloid, 16, 'cloid')
      return
    case 'settle':
      w.u8(ACTION_TAGS.settle)
      u64(w, a.asset_id, 'asset_id')
      u128(w, a.amount, 'amount')
      w.hexFixed(a.cash_account, 20, 'cash_account')
      w.hexFixed(a.cloid, 16, 'cloid')
      return
    case 'repay':
      w.u8(ACTION_TAGS.repay)
      u64(w, a.asset_id, 'asset_id')
      u128(w, a.amount, 'amount')
      w.hexFixed(a.margin_account, 20, 'margin_account')
      w.hexFixed(a.cloid, 16, 'cloid')
      return
    case 'approveAgent':
      w.u8(ACTION_TAGS.approveAgent)
      w.u8(a.slot_id)
      w.hexFixed(a.agent, 20, 'agent')
      return
    case 'revokeAgent':
      w.u8(ACTION_TAGS.revokeAgent)
      w.u8(a.slot_id)
      return
  }
}

export interface LegacyPayloadInput {
  action: TradeAction
  nonce: bigint
  agentEpoch?: bigint | undefined
  expiresAfterMs?: bigint | undefined
  chainId: number
}

/**
 * Canonical binary payload of an envelope. Every action type has an encoding (it also
 * names the transaction for `tx_hash`), but only legacy-scheme actions are signed over it.
 */
export function encodeLegacyPayload(input: LegacyPayloadInput): Uint8Array {
  const w = new Writer()
  w.bytes(LEGACY_MAGIC)
  w.u8(LEGACY_VERSION)
  if (!Number.isSafeInteger(input.chainId) || input.chainId < 0)
    throw new WireEncodeError('MalformedTx', 'chain id must be a non-negative integer', 'chainId')
  w.uint(BigInt(input.chainId), 8, 'chainId')
  w.uint(input.nonce, 8, 'nonce')
  optional(w, input.agentEpoch, (x) => w.uint(x, 8, 'agent_epoch'))
  optional(w, input.expiresAfterMs, (x) => w.uint(x, 8, 'expires_after_ms'))
  writeAction(w, input.action)
  return w.done()
}

/** keccak256 of the canonical payload: what a legacy signature signs (raw, no EIP-191 prefix). */
export function legacyDigest(input: LegacyPayloadInput): Hex {
  return keccak256(encodeLegacyPayload(input))
}
