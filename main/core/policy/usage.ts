import type { Journal, Submission } from '../journal'

/** One executed (or possibly executed) value move counted against a rolling limit. */
export interface UsageEntry {
  at: number
  assetId: number
  amountAtoms: bigint
  submissionId: number
}

/** Reconciled statuses that prove a write moved its value (the reconciler's success set). */
const EXECUTED = new Set(['ok', 'success', 'committed', 'executed', 'accepted'])

/**
 * Transfers or withdraws of a network journaled since `since`, read back from the exact signed
 * bodies, so usage survives restarts. A write whose fate is not known yet (signed, sent,
 * unknown) counts: a limit must not be exceeded by a write that may have gone through.
 */
export function journalUsage(
  journal: Journal,
  network: string,
  actionType: 'transfer' | 'withdraw',
  since: number,
  account?: string,
): UsageEntry[] {
  const rows = journal.list({ network, actionType, since, order: 'oldest', ...(account ? { account } : {}) })
  const out: UsageEntry[] = []
  for (const s of rows) {
    if (!counts(s)) continue
    const a = actionOf(s)
    if (!a) continue
    out.push({ at: s.createdAt, assetId: a.assetId, amountAtoms: a.amount, submissionId: s.id })
  }
  return out
}

function counts(s: Submission): boolean {
  if (s.state === 'rejected') return false
  // Reconciled: counts only when the service shows it executed (notsent, notexecuted, error statuses do not).
  if (s.state === 'reconciled') return s.finalStatus !== null && EXECUTED.has(s.finalStatus.toLowerCase())
  return true
}

function actionOf(s: Submission): { assetId: number; amount: bigint } | null {
  try {
    const env = JSON.parse(s.body) as { action?: { asset_id?: unknown; amount?: unknown } }
    const id = env.action?.asset_id
    const amount = env.action?.amount
    if (typeof id !== 'string' || typeof amount !== 'string' || !/^[0-9]+$/.test(id) || !/^[0-9]+$/.test(amount)) return null
    return { assetId: Number(id), amount: BigInt(amount) }
  } catch {
    return null
  }
}
