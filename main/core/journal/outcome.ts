import { NOT_EXECUTED_STATUSES, type Submission } from './types'

/**
 * The one outcome every caller shows for a write (CLI exit code, UI badge, notification).
 * Derived from the journal entry alone, so every host reads the same answer:
 * - `pending`: not settled yet (being sent or reconciled).
 * - `success`: executed without an error (`leafErrors` lists per-order failures of an
 *   accepted response; a caller may show those as partial).
 * - `rejected`: refused before execution; never executed (`code`).
 * - `notexecuted`: proven never executed (never sent, or expired while provably inside the
 *   lookback window without a trace).
 * - `failed`: reached execution and failed there (`code`, `advice`).
 * - `unresolved`: the evidence could not settle it (`advice`, `evidence`); re-sending needs a
 *   journaled acknowledgement (`acknowledged`).
 */
export type WriteOutcomeKind = 'pending' | 'success' | 'rejected' | 'notexecuted' | 'failed' | 'unresolved'

export interface WriteOutcomeOf {
  kind: WriteOutcomeKind
  code: string | null
  advice: string | null
  acknowledged: boolean
}

/** Order-level outcomes that closed an order without the action itself failing (benign). */
const EXECUTED_ERROR_STATUS = /^(invalid|insufficient|failed$|oraclemark|spotcreditaccountfrozen)/

export function outcomeOf(s: Submission): WriteOutcomeOf {
  const base = { code: s.code, advice: s.advice, acknowledged: s.acknowledgedAt !== null }
  switch (s.state) {
    case 'signed':
    case 'sent':
    case 'unknown':
      return { kind: 'pending', ...base }
    case 'rejected':
      return { kind: s.finalStatus === 'notexecuted' ? 'notexecuted' : 'rejected', ...base }
    case 'failed':
      return { kind: 'failed', ...base }
    case 'unresolved':
      return { kind: 'unresolved', ...base }
    case 'accepted':
      return { kind: 'success', ...base }
    case 'reconciled': {
      const st = s.finalStatus ?? ''
      if (NOT_EXECUTED_STATUSES.includes(st)) return { kind: 'notexecuted', ...base }
      if (EXECUTED_ERROR_STATUS.test(st)) return { kind: 'failed', ...base, code: s.code ?? st }
      return { kind: 'success', ...base }
    }
  }
}

/**
 * Why `key` (a cloid) may not be put on a new write, or null when it may: an entry holding it
 * is still being settled, executed (whatever its result), or is unresolved without an
 * operator acknowledgement. Only writes proven never executed (or acknowledged) free it.
 */
export function reuseBlocker(
  entries: readonly Submission[],
): { entry: Submission; reason: 'inflight' | 'executed' | 'unacknowledged' } | null {
  for (const e of entries) {
    const o = outcomeOf(e)
    if (o.kind === 'pending') return { entry: e, reason: 'inflight' }
    if (o.kind === 'unresolved' && !o.acknowledged) return { entry: e, reason: 'unacknowledged' }
    if (o.kind === 'success' || o.kind === 'failed') return { entry: e, reason: 'executed' }
  }
  return null
}
