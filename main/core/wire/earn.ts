/**
 * Earn pool wire profile, shared by the desk's earn client and the sandbox pool.
 *
 * The service does not publish its EIP-712 field lists (earn-api §5 "not shown"); this module
 * is the single place that defines them, so swapping the profile is a one-file change.
 * Field names follow the request fields; `withdraw_type` is signed as 1 (scheduled) or
 * 2 (instant) and `operation_id` as keccak256 of its UTF-8 bytes, as §5 states.
 */
import * as v from 'valibot'
import { hashTypedData, keccak256, recoverTypedDataAddress, stringToHex, type Address, type Hex, type TypedDataDomain } from 'viem'

// ---------------------------------------------------------------------------------------------
// Typed data

export type EarnSignedKind = 'CreateWithdrawal' | 'ClaimWithdrawal' | 'CancelWithdrawal'
export type WithdrawType = 'scheduled' | 'instant'

export const EARN_TYPES = {
  CreateWithdrawal: [
    { name: 'user_address', type: 'address' },
    { name: 'user_nonce', type: 'uint64' },
    { name: 'withdraw_type', type: 'uint8' },
    { name: 'asset_id', type: 'uint32' },
    { name: 'amount', type: 'uint256' },
    { name: 'deadline_unix_ms', type: 'uint64' },
  ],
  ClaimWithdrawal: [
    { name: 'user_address', type: 'address' },
    { name: 'operation_id', type: 'bytes32' },
    { name: 'deadline_unix_ms', type: 'uint64' },
  ],
  CancelWithdrawal: [
    { name: 'user_address', type: 'address' },
    { name: 'operation_id', type: 'bytes32' },
    { name: 'deadline_unix_ms', type: 'uint64' },
  ],
} as const

/** `eip712_domain` exactly as the pool's `config` returns it. */
export interface EarnDomain {
  name: string
  version: string
  verifyingContract: string
}

/** Request-level fields of a create, before the signing transforms. */
export interface CreateWithdrawalFields {
  user_address: string
  user_nonce: number | bigint
  withdraw_type: WithdrawType
  asset_id: number
  /** gross atoms, digits only */
  amount: string | bigint
  deadline_unix_ms: number | bigint
}

export interface OperationFields {
  user_address: string
  operation_id: string
  deadline_unix_ms: number | bigint
}

export type EarnFieldsOf<K extends EarnSignedKind> = K extends 'CreateWithdrawal' ? CreateWithdrawalFields : OperationFields

export const WITHDRAW_TYPE_CODE: Record<WithdrawType, 1 | 2> = { scheduled: 1, instant: 2 }

/** keccak256 of the operation id's UTF-8 bytes, the form signed in claim and cancel. */
export function operationIdHash(operationId: string): Hex {
  return keccak256(stringToHex(operationId))
}

export interface EarnTypedData<K extends EarnSignedKind = EarnSignedKind> {
  domain: TypedDataDomain
  types: Pick<typeof EARN_TYPES, K>
  primaryType: K
  message: Record<string, unknown>
}

/** Typed data ready for viem's `signTypedData` / `hashTypedData` / `recoverTypedDataAddress`. */
export function earnTypedData<K extends EarnSignedKind>(
  kind: K,
  fields: EarnFieldsOf<K>,
  domain: EarnDomain,
  chainId: number,
): EarnTypedData<K> {
  const d: TypedDataDomain = {
    name: domain.name,
    version: domain.version,
    chainId,
    verifyingContract: domain.verifyingContract as Address,
  }
  let message: Record<string, unknown>
  if (kind === 'CreateWithdrawal') {
    const f = fields as CreateWithdrawalFields
    message = {
      user_address: f.user_address as Address,
      user_nonce: BigInt(f.user_nonce),
      withdraw_type: WITHDRAW_TYPE_CODE[f.withdraw_type],
      asset_id: f.asset_id,
      amount: BigInt(f.amount),
      deadline_unix_ms: BigInt(f.deadline_unix_ms),
    }
  } else {
    const f = fields as OperationFields
    message = {
      user_address: f.user_address as Address,
      operation_id: operationIdHash(f.operation_id),
      deadline_unix_ms: BigInt(f.deadline_unix_ms),
    }
  }
  const types = { [kind]: EARN_TYPES[kind] } as unknown as Pick<typeof EARN_TYPES, K>
  return { domain: d, types, primaryType: kind, message }
}

/** The EIP-712 digest a signature is made over (what the claim binding keys on). */
export function earnDigest<K extends EarnSignedKind>(kind: K, fields: EarnFieldsOf<K>, domain: EarnDomain, chainId: number): Hex {
  const td = earnTypedData(kind, fields, domain, chainId)
  return hashTypedData(td as Parameters<typeof hashTypedData>[0])
}

/** Address recovered from an earn signature (throws on an unrecoverable signature). */
export async function recoverEarnSigner<K extends EarnSignedKind>(
  kind: K,
  fields: EarnFieldsOf<K>,
  domain: EarnDomain,
  chainId: number,
  signature: Hex,
): Promise<Address> {
  const td = earnTypedData(kind, fields, domain, chainId)
  return recoverTypedDataAddress({ ...(td as unknown as Parameters<typeof recoverTypedDataAddress>[0]), signature })
}

// ---------------------------------------------------------------------------------------------
// Requests

export const EARN_REQUEST_TYPES = [
  'config',
  'account',
  'deposits',
  'yieldHistory',
  'withdrawals',
  'withdrawal',
  'createWithdrawal',
  'claimWithdrawal',
  'cancelWithdrawal',
] as const
export type EarnRequestType = (typeof EARN_REQUEST_TYPES)[number]

export const WITHDRAWAL_STATUSES = [
  'created',
  'queued',
  'authorizing',
  'authorized',
  'transferring',
  'claimed',
  'completed',
  'cancelled',
  'manual_review',
] as const
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number]

/** Paging cursor: the sandbox uses integers; accepted as an opaque number or digit string. */
export type EarnCursor = number | string

export type EarnRequest =
  | { type: 'config' }
  | { type: 'account'; user_address: string }
  | { type: 'deposits' | 'yieldHistory'; user_address: string; asset_id?: number; before_id?: EarnCursor; limit?: number }
  | { type: 'withdrawals'; user_address: string; asset_id?: number; status?: WithdrawalStatus; before_id?: EarnCursor; limit?: number }
  | { type: 'withdrawal'; user_address: string; operation_id: string }
  | {
      type: 'createWithdrawal'
      user_address: string
      user_nonce: number
      withdraw_type: WithdrawType
      asset_id: number
      amount: string
      deadline_unix_ms: number
      user_signature: string
    }
  | {
      type: 'claimWithdrawal' | 'cancelWithdrawal'
      user_address: string
      operation_id: string
      deadline_unix_ms: number
      user_signature: string
    }

// ---------------------------------------------------------------------------------------------
// Responses (valibot schemas; the TS types are inferred from them)

const atoms = v.pipe(v.string(), v.regex(/^[0-9]+$/, 'amount must be digit-only atoms'))
const int = v.pipe(v.number(), v.integer())
const cursor = v.union([int, v.pipe(v.string(), v.regex(/^[0-9]+$/))])
const address = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/))
const hash = v.string()
const nullableMs = v.nullable(int)

export const EarnAssetSchema = v.object({
  asset_id: int,
  symbol: v.string(),
  balance_decimals: int,
  deposit_enabled: v.boolean(),
  scheduled_withdraw_enabled: v.boolean(),
  instant_withdraw_enabled: v.boolean(),
  withdraw_pending_seconds: int,
  instant_fee_bps: int,
  min_withdraw_amount: atoms,
  max_single_withdraw_amount: atoms,
  projected_apy: v.optional(v.string()),
  realtime_tvl_amount: v.optional(atoms),
})
export type EarnAsset = v.InferOutput<typeof EarnAssetSchema>

export const EarnConfigSchema = v.object({
  native_chain_id: int,
  vault_address: address,
  fee_wallet_address: address,
  snapshot_time_utc: v.pipe(v.string(), v.regex(/^\d{2}:\d{2}:\d{2}\.\d{3}$/)),
  withdrawal_paused: v.boolean(),
  eip712_domain: v.object({ name: v.string(), version: v.string(), verifyingContract: address }),
  assets: v.array(EarnAssetSchema),
})
export type EarnConfig = v.InferOutput<typeof EarnConfigSchema>

const withdrawalBase = {
  id: cursor,
  operation_id: v.string(),
  user_address: address,
  user_nonce: int,
  withdraw_type: v.picklist(['scheduled', 'instant']),
  asset_id: int,
  gross_amount: atoms,
  user_amount: atoms,
  fee_amount: atoms,
  fee_bps_snapshot: int,
  request_deadline_unix_ms: int,
  claimable_at_unix_ms: nullableMs,
  status: v.picklist(WITHDRAWAL_STATUSES),
  created_at_unix_ms: int,
  failure_code: v.optional(v.string()),
  failure_message: v.optional(v.string()),
  claimed_at_unix_ms: nullableMs,
  cancelled_at_unix_ms: nullableMs,
  completed_at_unix_ms: nullableMs,
}

/** A record as listed by `withdrawals` and returned by the writes: with payout hashes when set. */
export const WithdrawalRecordSchema = v.object({
  ...withdrawalBase,
  core_tx_hash: v.optional(hash),
  fee_core_tx_hash: v.optional(hash),
})
export type WithdrawalRecord = v.InferOutput<typeof WithdrawalRecordSchema>

/** The single `withdrawal` read omits both payout hashes. */
export const WithdrawalDetailSchema = v.object(withdrawalBase)
export type WithdrawalDetail = v.InferOutput<typeof WithdrawalDetailSchema>

export const EarnBalanceSchema = v.object({
  asset_id: int,
  earn_balance: atoms,
  in_queue_balance: atoms,
  withdraw_locked_balance: atoms,
  lifetime_deposit: atoms,
  lifetime_yield: atoms,
  lifetime_withdraw: atoms,
  active_withdraw_operation_id: v.string(),
  active_withdrawal: v.nullable(WithdrawalRecordSchema),
})
export type EarnBalance = v.InferOutput<typeof EarnBalanceSchema>

export const EarnAccountSchema = v.object({
  user_address: address,
  next_user_nonce: int,
  balances: v.array(EarnBalanceSchema),
})
export type EarnAccount = v.InferOutput<typeof EarnAccountSchema>

export const DepositEntrySchema = v.object({
  id: cursor,
  operation_id: v.string(),
  deposit_type: v.picklist(['bridge_deposit', 'direct_transfer']),
  asset_id: int,
  amount: atoms,
  status: v.picklist(['credited', 'rejected']),
  core_height: int,
  core_event_timestamp_ms: int,
  src_chain_id: v.optional(int),
  src_tx_hash: v.optional(hash),
  core_tx_hash: v.optional(hash),
})
export type DepositEntry = v.InferOutput<typeof DepositEntrySchema>

export const YieldEntrySchema = v.object({
  id: cursor,
  distribution_id: v.string(),
  asset_id: int,
  snapshot_balance: atoms,
  yield_amount: atoms,
  applied_at_unix_ms: int,
})
export type YieldEntry = v.InferOutput<typeof YieldEntrySchema>

/** Page of a paged read. The list key is not shown by the spec; this profile names it `items`. */
export function pageSchema<T extends v.GenericSchema>(item: T) {
  return v.object({ items: v.array(item), next_before_id: v.nullable(cursor) })
}
export const DepositsPageSchema = pageSchema(DepositEntrySchema)
export const YieldPageSchema = pageSchema(YieldEntrySchema)
export const WithdrawalsPageSchema = pageSchema(WithdrawalRecordSchema)
export interface EarnPage<T> {
  items: T[]
  next_before_id: EarnCursor | null
}

export type EarnErrorCode = 131002 | 131004 | 131006 | 201005

/** Success envelope: `code` 0 with `data` and `message`; failure: nonzero `code` and `message`, no `data` key. */
export const EarnEnvelopeSchema = v.union([
  v.object({ code: v.literal(0), message: v.string(), data: v.unknown() }),
  v.strictObject({ code: v.picklist([131002, 131004, 131006, 201005]), message: v.string() }),
])
export type EarnEnvelope<T = unknown> = { code: 0; message: string; data: T } | { code: EarnErrorCode; message: string }

/** Which schema validates `data` for each operation (claim and cancel return the updated record). */
export const EARN_DATA_SCHEMAS = {
  config: EarnConfigSchema,
  account: EarnAccountSchema,
  deposits: DepositsPageSchema,
  yieldHistory: YieldPageSchema,
  withdrawals: WithdrawalsPageSchema,
  withdrawal: WithdrawalDetailSchema,
  createWithdrawal: WithdrawalRecordSchema,
  claimWithdrawal: WithdrawalRecordSchema,
  cancelWithdrawal: WithdrawalRecordSchema,
} as const satisfies Record<EarnRequestType, v.GenericSchema>

export interface EarnDataOf {
  config: EarnConfig
  account: EarnAccount
  deposits: EarnPage<DepositEntry>
  yieldHistory: EarnPage<YieldEntry>
  withdrawals: EarnPage<WithdrawalRecord>
  withdrawal: WithdrawalDetail
  createWithdrawal: WithdrawalRecord
  claimWithdrawal: WithdrawalRecord
  cancelWithdrawal: WithdrawalRecord
}
