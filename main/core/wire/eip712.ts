import type { TypedDataDefinition } from 'viem'
import type { Eip712Action } from './actions'

/**
 * EIP-712 v4 typed data for the owner actions. Field names are the spec's action field
 * names; every message also carries the envelope `nonce` and `expires_after_ms`
 * (0 when absent). The chain id lives in the domain. See docs/wire-profile.md.
 */

export const EIP712_DOMAIN_NAME = 'OrderBookTrading'
export const EIP712_DOMAIN_VERSION = '1'

const envelopeFields = [
  { name: 'nonce', type: 'uint64' },
  { name: 'expires_after_ms', type: 'uint64' },
] as const

export const EIP712_TYPES = {
  Transfer: [
    { name: 'to', type: 'address' },
    { name: 'asset_id', type: 'uint64' },
    { name: 'amount', type: 'uint256' },
    { name: 'cloid', type: 'bytes16' },
    ...envelopeFields,
  ],
  ActivateFor: [
    { name: 'asset_id', type: 'uint64' },
    { name: 'target_address', type: 'address' },
    { name: 'cloid', type: 'bytes16' },
    ...envelopeFields,
  ],
  Withdraw: [
    { name: 'asset_id', type: 'uint64' },
    { name: 'amount', type: 'uint256' },
    { name: 'dst_chain_id', type: 'uint64' },
    { name: 'dst_address', type: 'address' },
    { name: 'withdraw_nonce', type: 'uint64' },
    { name: 'cloid', type: 'bytes16' },
    ...envelopeFields,
  ],
  Settle: [
    { name: 'asset_id', type: 'uint64' },
    { name: 'amount', type: 'uint256' },
    { name: 'cash_account', type: 'address' },
    { name: 'cloid', type: 'bytes16' },
    ...envelopeFields,
  ],
  Repay: [
    { name: 'asset_id', type: 'uint64' },
    { name: 'amount', type: 'uint256' },
    { name: 'margin_account', type: 'address' },
    { name: 'cloid', type: 'bytes16' },
    ...envelopeFields,
  ],
  ApproveAgent: [{ name: 'slot_id', type: 'uint8' }, { name: 'agent', type: 'address' }, ...envelopeFields],
  RevokeAgent: [{ name: 'slot_id', type: 'uint8' }, ...envelopeFields],
} as const

export type Eip712PrimaryType = keyof typeof EIP712_TYPES

export const PRIMARY_TYPE_BY_ACTION: Record<Eip712Action['type'], Eip712PrimaryType> = {
  transfer: 'Transfer',
  activateFor: 'ActivateFor',
  withdraw: 'Withdraw',
  settle: 'Settle',
  repay: 'Repay',
  approveAgent: 'ApproveAgent',
  revokeAgent: 'RevokeAgent',
}

export function tradingDomain(chainId: number) {
  return { name: EIP712_DOMAIN_NAME, version: EIP712_DOMAIN_VERSION, chainId } as const
}

export interface TradingTypedDataInput {
  action: Eip712Action
  nonce: bigint
  expiresAfterMs?: bigint | undefined
  chainId: number
}

type Message = Record<string, string | bigint | number>

function messageOf(a: Eip712Action): Message {
  switch (a.type) {
    case 'transfer':
      return { to: a.to, asset_id: BigInt(a.asset_id), amount: BigInt(a.amount), cloid: a.cloid }
    case 'activateFor':
      return { asset_id: BigInt(a.asset_id), target_address: a.target_address, cloid: a.cloid }
    case 'withdraw':
      return {
        asset_id: BigInt(a.asset_id),
        amount: BigInt(a.amount),
        dst_chain_id: BigInt(a.dst_chain_id),
        dst_address: a.dst_address,
        withdraw_nonce: BigInt(a.withdraw_nonce),
        cloid: a.cloid,
      }
    case 'settle':
      return { asset_id: BigInt(a.asset_id), amount: BigInt(a.amount), cash_account: a.cash_account, cloid: a.cloid }
    case 'repay':
      return { asset_id: BigInt(a.asset_id), amount: BigInt(a.amount), margin_account: a.margin_account, cloid: a.cloid }
    case 'approveAgent':
      return { slot_id: a.slot_id, agent: a.agent }
    case 'revokeAgent':
      return { slot_id: a.slot_id }
  }
}

/** The viem typed-data definition an owner signs for an eip712 action. */
export function tradingTypedData(input: TradingTypedDataInput): TypedDataDefinition<typeof EIP712_TYPES, Eip712PrimaryType> {
  const primaryType = PRIMARY_TYPE_BY_ACTION[input.action.type]
  return {
    domain: tradingDomain(input.chainId),
    types: EIP712_TYPES,
    primaryType,
    message: { ...messageOf(input.action), nonce: input.nonce, expires_after_ms: input.expiresAfterMs ?? 0n },
  } as TypedDataDefinition<typeof EIP712_TYPES, Eip712PrimaryType>
}
