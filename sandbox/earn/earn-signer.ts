/**
 * Builds signed earn write bodies with a local key — used by the scenario bot, the conformance
 * tests and anyone driving the sandbox pool by hand. Development keys only.
 */
import { privateKeyToAccount } from 'viem/accounts'
import type { Hex } from 'viem'
import { earnTypedData, type EarnDomain, type WithdrawType } from '../../main/core/wire/earn'

export interface EarnSigningContext {
  domain: EarnDomain
  chainId: number
}

export function earnSigner(privateKey: Hex, ctx: EarnSigningContext) {
  const account = privateKeyToAccount(privateKey)
  const sign = (td: unknown) => account.signTypedData(td as Parameters<typeof account.signTypedData>[0])
  return {
    address: account.address,
    async create(f: { user_nonce: number; withdraw_type: WithdrawType; asset_id: number; amount: string; deadline_unix_ms: number }) {
      const fields = { user_address: account.address, ...f }
      const user_signature = await sign(earnTypedData('CreateWithdrawal', fields, ctx.domain, ctx.chainId))
      return { type: 'createWithdrawal' as const, ...fields, user_signature }
    },
    async claim(operation_id: string, deadline_unix_ms: number) {
      const fields = { user_address: account.address, operation_id, deadline_unix_ms }
      const user_signature = await sign(earnTypedData('ClaimWithdrawal', fields, ctx.domain, ctx.chainId))
      return { type: 'claimWithdrawal' as const, ...fields, user_signature }
    },
    async cancel(operation_id: string, deadline_unix_ms: number) {
      const fields = { user_address: account.address, operation_id, deadline_unix_ms }
      const user_signature = await sign(earnTypedData('CancelWithdrawal', fields, ctx.domain, ctx.chainId))
      return { type: 'cancelWithdrawal' as const, ...fields, user_signature }
    },
  }
}
