/**
 * Whether typed data about to be signed for a team-held account carries exactly a proposal's
 * approved action: the check both the executing desk (to find the proposal it signs for) and every
 * holder's desk (before it releases a share) make on their own. Only what is chosen at signing may
 * differ from the proposal: the envelope nonce and expiry, a withdrawal's business nonce, an API key
 * approval's new key (as the chain's `signed` rule allows), an earn request's deadline.
 */
import { hashTypedData, type Hex, type TypedDataDefinition } from 'viem'
import type { Proposal } from '../../team'
import { PRIMARY_TYPE_BY_ACTION, tradingTypedData, type Eip712Action } from '../../wire'
import { operationIdHash } from '../../wire/earn'

type Json = Record<string, unknown>

/** Typed data as JSON text (bigints as decimal strings), for the store; and back. */
export function typedDataText(td: TypedDataDefinition): string {
  return JSON.stringify(td, (_k, v: unknown) => (typeof v === 'bigint' ? { $big: v.toString() } : v))
}
export function typedDataOf(text: string): TypedDataDefinition {
  return JSON.parse(text, (_k, v: unknown) =>
    v && typeof v === 'object' && '$big' in (v as Json) && typeof (v as Json).$big === 'string' ? BigInt((v as { $big: string }).$big) : v,
  ) as TypedDataDefinition
}

const big = (v: unknown): bigint | null => {
  try {
    return typeof v === 'bigint' ? v : typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v)) ? BigInt(v) : null
  } catch {
    return null
  }
}
const same = (a: unknown, b: unknown) => String(a).toLowerCase() === String(b).toLowerCase()

/** The digest `td` signs, when it carries `p`'s approved action exactly; null otherwise (or when it cannot be encoded). */
export function digestCarrying(p: Proposal, td: TypedDataDefinition): Hex | null {
  try {
    const digest = hashTypedData(td)
    const a = p.action as Json
    const m = (td.message ?? {}) as Json
    const type = String(a.type)
    if (type in PRIMARY_TYPE_BY_ACTION) {
      const chainId = Number((td.domain as { chainId?: unknown } | undefined)?.chainId)
      const nonce = big(m.nonce)
      const expires = big(m.expires_after_ms)
      if (!Number.isSafeInteger(chainId) || nonce === null || expires === null) return null
      const action = { ...a } as Json
      if (type === 'withdraw') action.withdraw_nonce = String(big(m.withdraw_nonce) ?? '')
      if (type === 'approveAgent') action.agent = m.agent
      const expected = tradingTypedData({ action: action as unknown as Eip712Action, nonce, expiresAfterMs: expires, chainId })
      return hashTypedData(expected) === digest ? digest : null
    }
    // Earn writes: the pool's typed data, field by field against the approved request.
    if (type === 'createWithdrawal') {
      const ok =
        td.primaryType === 'CreateWithdrawal' &&
        same(m.user_address, a.user_address) &&
        big(m.user_nonce) === big(a.user_nonce) &&
        big(m.asset_id) === big(a.asset_id) &&
        big(m.amount) === big(a.amount)
      return ok ? digest : null
    }
    if (type === 'claimWithdrawal' || type === 'cancelWithdrawal') {
      const ok =
        td.primaryType === (type === 'claimWithdrawal' ? 'ClaimWithdrawal' : 'CancelWithdrawal') &&
        same(m.user_address, a.user_address) &&
        typeof a.operation_id === 'string' &&
        same(m.operation_id, operationIdHash(a.operation_id))
      return ok ? digest : null
    }
    return null
  } catch {
    return null
  }
}
