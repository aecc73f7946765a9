/**
 * The takeover of an earn write (createWithdrawal, claimWithdrawal, cancelWithdrawal): its stored
 * bytes are the pool's request body, not a /trade envelope. The earn API allows re-sending the same
 * bytes: a claim binds its digest and is resent byte-identical on every retry (earn-api §5); a
 * create is bound to its `user_nonce` (operation id `withdraw:<user>:<nonce>`) and to the one active
 * withdrawal per (address, asset); a cancel of a cancelled withdrawal is refused ("not cancelable").
 * Every write is looked up by its operation id (`withdrawal`). So, never signing anything:
 *  1. the operation is read first: this write's effect found -> that is the outcome, nothing sent;
 *  2. while the signed deadline is ahead, the same bytes are re-sent by the earn client's own rules
 *     (journaled under the operation id, read back before each retry);
 *  3. refused, or the deadline already past: the operation is read again; effect found -> its
 *     outcome; not found -> `unresolved` with the reads as evidence (whether a first send by the
 *     crashed desk ever reached the pool is not this desk's to claim); a failed read -> `unknown`,
 *     and the next takeover after the lease reads again.
 */
import { DeskError } from '../../errors/desk-error'
import type { Journal, Submission } from '../../journal'
import type { WriteSide } from '../../session'
import type { Proposal } from '../../team'
import type { WithdrawalDetail } from '../../wire/earn'
import type { ProposalOutcome, StoredSignature } from './team-gate'

const EARN_WRITES = ['createWithdrawal', 'claimWithdrawal', 'cancelWithdrawal'] as const
type EarnWriteType = (typeof EARN_WRITES)[number]

/** The fields of a stored earn request body the takeover needs. */
export interface EarnBody {
  type: EarnWriteType
  user_address: string
  user_nonce?: number
  operation_id?: string
  withdraw_type?: string
  asset_id?: number
  amount?: string
  deadline_unix_ms: number
}

/** The stored bytes as an earn write request, or null when they are not one. */
export function earnBodyOf(body: string): EarnBody | null {
  let b: Record<string, unknown>
  try {
    b = JSON.parse(body) as Record<string, unknown>
  } catch {
    return null
  }
  if (typeof b !== 'object' || b === null) return null
  if (!EARN_WRITES.includes(b.type as EarnWriteType)) return null
  if (typeof b.user_address !== 'string' || typeof b.user_signature !== 'string' || typeof b.deadline_unix_ms !== 'number') return null
  if (b.type === 'createWithdrawal' ? typeof b.user_nonce !== 'number' : typeof b.operation_id !== 'string') return null
  return b as unknown as EarnBody
}

/** The operation id the pool files this write under (the proposal's cloid). */
export function earnOperationId(b: EarnBody): string {
  return b.type === 'createWithdrawal' ? `withdraw:${b.user_address.toLowerCase()}:${b.user_nonce}` : b.operation_id!
}

/** Why these bytes cannot be this proposal's earn write; null when they are. */
export function earnMismatch(p: Proposal, b: EarnBody): string | null {
  if (b.user_address.toLowerCase() !== p.account) return `its stored bytes are for ${b.user_address}, the proposal for ${p.account}`
  const op = earnOperationId(b)
  if (op !== p.cloid) return `its stored bytes name operation ${op}, the proposal ${p.cloid}`
  return null
}

/** Did this write take effect on the record? (the record of exactly these bytes for a create) */
function effectOn(b: EarnBody, rec: WithdrawalDetail | null): boolean {
  if (!rec) return false
  if (b.type === 'createWithdrawal')
    return rec.user_nonce === b.user_nonce && String(rec.gross_amount) === b.amount && rec.withdraw_type === b.withdraw_type
  if (b.type === 'cancelWithdrawal') return rec.status === 'cancelled'
  return rec.claimed_at_unix_ms !== null
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e))
const RESENDABLE: readonly Submission['state'][] = ['signed', 'sent', 'unknown']

/** What the pool's records say of the operation now (each read noted in `checks`); null when a read failed. */
async function groundTruth(w: WriteSide, b: EarnBody, op: string, checks: string[]): Promise<{ rec: WithdrawalDetail | null } | null> {
  const user = b.user_address.toLowerCase()
  let rec: WithdrawalDetail | null
  try {
    rec = await w.earn.withdrawal(user, op, 'operator')
  } catch (e) {
    checks.push(`withdrawal(${op}): failed (${message(e)})`)
    return null
  }
  checks.push(
    `withdrawal(${op}): ${rec ? `found, status ${rec.status}${effectOn(b, rec) ? '' : ", without this write's effect"}` : 'not found'}`,
  )
  if (b.type === 'createWithdrawal' && !effectOn(b, rec)) {
    // The nonce counter is evidence too: still at the stored nonce, no create with it went through.
    try {
      const account = await w.earn.account(user, 'operator')
      checks.push(`account(${user}): next_user_nonce ${account.next_user_nonce} (stored bytes: user_nonce ${b.user_nonce})`)
    } catch (e) {
      checks.push(`account(${user}): failed (${message(e)})`)
    }
  }
  return { rec }
}

const found = (rec: WithdrawalDetail): ProposalOutcome => ({ state: 'reconciled', finalStatus: rec.status, code: null })

/** Sends the stored earn bytes again, or settles them from the pool's records (see the module comment). */
export async function resendEarn(w: WriteSide, p: Proposal, stored: StoredSignature, b: EarnBody): Promise<ProposalOutcome> {
  const op = earnOperationId(b)
  const checks: string[] = []
  const unknown = (code: string): ProposalOutcome => ({ state: 'unknown', finalStatus: null, code, evidence: JSON.stringify({ checks }) })

  const before = await groundTruth(w, b, op, checks)
  if (!before) return unknown('ReconcileFailed')
  if (before.rec && effectOn(b, before.rec)) return found(before.rec)

  let code = 'EarnDeadlinePassed'
  if (b.deadline_unix_ms > w.earn.http.now() + 5000) {
    const entry = journalEntry(w.journal, p, stored, b, op)
    if (!RESENDABLE.includes(entry.state)) return settledEntry(entry)
    try {
      const r = await w.earn.sendWrite(entry)
      return settledEntry(r.submission)
    } catch (e) {
      const s = w.journal.get(entry.id) ?? entry
      checks.push(`re-sent the stored bytes: ${s.state}${s.code ? `, code ${s.code}` : ''} (${message(e)})`)
      // No final answer (the pool unavailable, the answer lost): the same bytes again after the lease.
      if (s.state !== 'rejected') return unknown(s.code ?? (e instanceof DeskError ? e.code : 'EarnOutcomeUnknown'))
      code = s.code ?? 'EarnRejected'
    }
    const after = await groundTruth(w, b, op, checks)
    if (!after) return unknown('ReconcileFailed')
    if (after.rec && effectOn(b, after.rec)) return found(after.rec)
  } else {
    checks.push(`not re-sent: the signed deadline ${new Date(b.deadline_unix_ms).toISOString()} has passed (the pool refuses the bytes)`)
  }
  return {
    state: 'unresolved',
    finalStatus: 'unresolved',
    code,
    evidence: JSON.stringify({
      checks,
      why:
        'the pool shows no effect of the stored bytes and can no longer be asked to execute them; whether a first send ever reached it is not ' +
        "known to this desk, so 'never executed' is not claimed",
    }),
  }
}

/** This desk's journal entry for the stored bytes: its own (same body) when it still has one, a new one otherwise. */
function journalEntry(journal: Journal, p: Proposal, stored: StoredSignature, b: EarnBody, op: string): Submission {
  const own = journal.list({ network: p.network, key: op }).filter((s) => s.body === stored.body && s.channel === 'earn')
  const live = own.find((s) => RESENDABLE.includes(s.state))
  if (live) return live
  const done = own.find(
    (s) => s.state === 'accepted' || (s.state === 'reconciled' && !['notexecuted', 'notsent'].includes(s.finalStatus ?? '')),
  )
  if (done) return done
  const user = b.user_address.toLowerCase()
  const entry = journal.record({
    channel: 'earn',
    key: op,
    network: p.network,
    account: user,
    signer: user,
    actionType: b.type,
    summary: `${p.title} (team proposal ${p.id}, taken over: the stored signed bytes re-sent)`.slice(0, 300),
    nonce: null,
    businessNonce: b.type === 'createWithdrawal' ? String(b.user_nonce) : null,
    body: stored.body,
  })
  return journal.linkProposal(entry.id, p.id)
}

function settledEntry(s: Submission): ProposalOutcome {
  if (s.state === 'accepted' || s.state === 'reconciled') return { state: s.state, finalStatus: s.finalStatus, code: s.code }
  return { state: 'unknown', finalStatus: null, code: s.code }
}
