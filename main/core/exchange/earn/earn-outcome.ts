import type { Submission } from '../../journal'
import type { WithdrawalDetail, WithdrawalRecord } from '../../wire/earn'

/** What an earn write ended with: its journal entry, operation id and the withdrawal as read. */
export interface EarnWriteResult {
  submission: Submission
  operationId: string
  record: WithdrawalRecord | WithdrawalDetail | null
}

/** The three signed earn writes. */
export type WriteType = 'createWithdrawal' | 'claimWithdrawal' | 'cancelWithdrawal'

/** Did `type` take effect on this record? (create: it exists; claim: it left `queued` by a claim; cancel: cancelled.) */
export function writeEffect(type: WriteType, rec: WithdrawalDetail | null, entry: Submission): boolean {
  if (!rec) return false
  if (type === 'createWithdrawal') return String(rec.user_nonce) === entry.businessNonce
  if (type === 'cancelWithdrawal') return rec.status === 'cancelled'
  return rec.claimed_at_unix_ms !== null
}

/**
 * A payout held for manual review, or a non-final record carrying a `failure_code`, does not
 * resolve on its own (earn-api §3): say so, so the operator does not wait for it.
 */
export function payoutAdvice(
  rec: { status?: unknown; failure_code?: unknown; failure_message?: unknown } | null | undefined,
): string | null {
  if (!rec || typeof rec !== 'object') return null
  const terminal = rec.status === 'claimed' || rec.status === 'completed' || rec.status === 'cancelled'
  if (rec.status === 'manual_review' || (!terminal && typeof rec.failure_code === 'string')) {
    const why =
      typeof rec.failure_code === 'string'
        ? ` (${rec.failure_code}${typeof rec.failure_message === 'string' ? `: ${rec.failure_message}` : ''})`
        : ''
    return (
      `The payout failed${why} and is held by the pool (status ${String(rec.status)}); it will not resolve on its own. Contact the pool ` +
      `operator; do not create another withdrawal for it.`
    )
  }
  return null
}

/** The deadline signed into an earn write (0 when its body has none). */
export function deadlineOf(s: Submission): number {
  try {
    const d = (JSON.parse(s.body) as { deadline_unix_ms?: unknown }).deadline_unix_ms
    return typeof d === 'number' ? d : 0
  } catch {
    return 0
  }
}
