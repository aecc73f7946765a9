/**
 * The takeover's send: a desk finishing a proposal another desk (or this one, before a crash)
 * signed. Earn writes (their stored bytes are the pool's request body) go to earn-takeover.ts; this
 * module handles /trade envelopes. It re-sends exactly the bytes stored in the team store (it needs no signing key and never
 * signs), journaled locally under the proposal's cloid with the proposal id in the summary, then
 * settles the outcome by the exchange's own record of the cloid:
 *  - the exchange accepts them: that is the one transaction;
 *  - it refuses them (the nonce was used: the crashed desk's send got through; or the envelope
 *    expired): txStatusByCloid says whether the write executed; when it cannot confirm either way
 *    the outcome is `unresolved` with the reads as evidence, never a new signature;
 *  - the answer is lost: the journal's reconciler resolves the entry by cloid, or the outcome
 *    stays `unknown` and the next takeover (after the lease) tries again with the same bytes.
 */
import { DeskError } from '../../errors/desk-error'
import { infoTradeReads } from '../../exchange/trade/info-reads'
import { withCloid } from '../../exchange/trade/cloid'
import type { TradeReads } from '../../exchange/trade/reconciler'
import { NOT_EXECUTED_STATUSES, type Journal, type Submission } from '../../journal'
import { exchangeIdentity, exchangeKey } from '../../policy'
import type { SessionSource, WriteSide } from '../../session'
import type { Proposal } from '../../team'
import type { TradeEnvelope } from '../../wire'
import { earnBodyOf, earnMismatch, resendEarn } from './earn-takeover'
import type { ProposalOutcome, StoredSignature } from './team-gate'

export interface TakeoverSender {
  /** Why this desk cannot send the proposal's stored bytes (another network, not a /trade write); null when it can. */
  cannotSend(p: Proposal): Promise<string | null>
  /** Sends the stored bytes once and settles their outcome (see the module comment). */
  resend(p: Proposal, stored: StoredSignature): Promise<ProposalOutcome>
}

/** Codes meaning the exchange never got to execute these bytes this time (retry later, same bytes). */
const NOT_DELIVERED = new Set(['NotSent', 'Unavailable', 'RateLimited', 'Throttled', 'PlaceOrderSuspended'])
const SUCCESS = new Set(['ok', 'success', 'committed', 'executed', 'accepted'])
const RESENDABLE: readonly Submission['state'][] = ['signed', 'sent', 'unknown']

function envelopeOf(body: string): TradeEnvelope | null {
  try {
    const env = JSON.parse(body) as TradeEnvelope
    if (typeof env !== 'object' || env === null || typeof env.action !== 'object' || typeof env.signature !== 'string') return null
    return env
  } catch {
    return null
  }
}

export interface SessionTakeoverDeps {
  sessions: SessionSource
  /** Test hook: the /info reads that settle a refused re-send by cloid. */
  reads?: (w: WriteSide) => TradeReads
}

export function sessionTakeoverSender(d: SessionTakeoverDeps): TakeoverSender {
  const writeSide = async (p: Proposal): Promise<WriteSide | string> => {
    const session = await d.sessions.current()
    if (session.name !== p.network) return `this desk is on ${session.name}, the proposal on ${p.network}`
    if (exchangeKey(exchangeIdentity(session.network)) !== p.exchange) return `this desk's ${p.network} is another exchange`
    return session.write()
  }
  const sendable = async (p: Proposal): Promise<string | null> => {
    try {
      const w = await writeSide(p)
      return typeof w === 'string' ? w : null
    } catch (e) {
      return e instanceof Error ? e.message : String(e)
    }
  }
  const readsFor = async (w: WriteSide): Promise<TradeReads> => (d.reads ? d.reads(w) : infoTradeReads((await d.sessions.current()).info))

  return {
    async cannotSend(p) {
      const earn = p.signed ? earnBodyOf(p.signed.body) : null
      if (earn) {
        const bad = earnMismatch(p, earn)
        if (bad) return bad
        return sendable(p)
      }
      const env = p.signed ? envelopeOf(p.signed.body) : null
      if (!env) return 'its stored bytes are neither a /trade envelope nor an earn write'
      let key: string
      try {
        key = withCloid(env.action).key
      } catch {
        return 'its stored action carries no valid cloid'
      }
      if (key !== p.cloid) return `its stored bytes name cloid ${key}, the proposal ${p.cloid}`
      return sendable(p)
    },

    async resend(p, stored) {
      const w = await writeSide(p)
      if (typeof w === 'string') throw new DeskError('TeamTakeoverRefused', w)
      const earn = earnBodyOf(stored.body)
      if (earn) {
        const bad = earnMismatch(p, earn)
        if (bad) throw new DeskError('TeamTakeoverRefused', bad)
        return resendEarn(w, p, stored, earn)
      }
      const env = envelopeOf(stored.body)
      if (!env) throw new DeskError('TeamTakeoverRefused', 'the stored bytes are neither a /trade envelope nor an earn write')
      let entry = journalEntry(w.journal, p, stored, env)
      let sent = entry
      for (let attempt = 0; attempt < 2; attempt++) {
        if (!RESENDABLE.includes(entry.state)) return outcomeOf(entry)
        try {
          sent = (await w.submitter.send(entry)).submission
        } catch {
          sent = w.journal.get(entry.id) ?? entry
        }
        // This journal's reconciler closed its own entry as "never sent from here" before the send
        // took it: true of this journal only, not of the exchange. Journal the bytes again and send.
        if (sent.state === 'reconciled' && isNotExecuted(sent) && sent.attempts === 0) {
          entry = journalEntry(w.journal, p, stored, env)
          continue
        }
        break
      }
      if (sent.state === 'unknown' || sent.state === 'sent') {
        // The answer was lost: the journal's reconciler reads the exchange by cloid.
        await w.reconciler.reconcileEntry(sent).catch(() => false)
        sent = w.journal.get(sent.id) ?? sent
        return outcomeOf(sent)
      }
      if (sent.state !== 'rejected') return outcomeOf(sent)
      return byCloid(w.journal, sent, await readsFor(w), p)
    },
  }
}

/** This desk's journal entry for the stored bytes: its own (same body) when it has one that can still be sent, a new one otherwise. */
function journalEntry(journal: Journal, p: Proposal, stored: StoredSignature, env: TradeEnvelope): Submission {
  const own = journal.list({ network: p.network, key: p.cloid }).filter((s) => s.body === stored.body)
  const live = own.find((s) => RESENDABLE.includes(s.state))
  if (live) return live
  const executed = own.find((s) => s.state === 'accepted' || s.state === 'failed' || (s.state === 'reconciled' && !isNotExecuted(s)))
  if (executed) return executed
  const action = env.action as { type: string; withdraw_nonce?: string }
  const input = {
    channel: 'trade' as const,
    key: p.cloid,
    network: p.network,
    account: p.account,
    signer: p.signer ?? p.account,
    actionType: action.type,
    summary: `${p.title} (team proposal ${p.id}, taken over: the stored signed bytes re-sent)`.slice(0, 300),
    nonce: stored.nonce,
    businessNonce: action.type === 'withdraw' ? (action.withdraw_nonce ?? null) : null,
    body: stored.body,
    // The first send's height is not known here: a lost answer ends unresolved, never "not executed".
    submitHeight: null,
  }
  let entry: Submission
  try {
    entry = journal.record(input)
  } catch (e) {
    // This journal already used these nonces (it journaled the same bytes before a restart, or signed
    // later writes with the same key): the bytes are journaled again without claiming them.
    if (!(e instanceof DeskError && e.code === 'NonceConflict')) throw e
    entry = journal.record({ ...input, nonce: null, businessNonce: null })
  }
  return journal.linkProposal(entry.id, p.id)
}

const isNotExecuted = (s: Submission) => s.finalStatus !== null && NOT_EXECUTED_STATUSES.includes(s.finalStatus)

function outcomeOf(s: Submission): ProposalOutcome {
  switch (s.state) {
    case 'accepted':
    case 'failed':
    case 'rejected':
      return { state: s.state, finalStatus: s.finalStatus, code: s.code }
    case 'reconciled':
      return { state: 'reconciled', finalStatus: s.finalStatus, code: s.code }
    case 'unresolved':
      return { state: 'unresolved', finalStatus: s.finalStatus, code: s.code, evidence: s.evidence }
    default:
      return { state: 'unknown', finalStatus: null, code: s.code }
  }
}

/**
 * The re-send was refused (a used nonce, an expired envelope) or never got through: whether the
 * write executed is read from the exchange by cloid. Found: its status is the outcome. Not found
 * after a refusal: the exchange cannot confirm it (the first send's height is unknown), so the
 * outcome is `unresolved` with what was checked. Not delivered this time: `unknown`, retried later.
 */
async function byCloid(journal: Journal, s: Submission, reads: TradeReads, p: Proposal): Promise<ProposalOutcome> {
  const checks = [`re-sent the stored bytes (nonce ${s.nonce ?? 'as stored'}): ${s.finalStatus ?? s.state}, code ${s.code ?? 'none'}`]
  let tx: Awaited<ReturnType<TradeReads['txStatusByCloid']>>
  try {
    tx = await reads.txStatusByCloid(s.signer, p.cloid)
  } catch (e) {
    checks.push(`txStatusByCloid(${s.signer}, ${p.cloid}): failed (${e instanceof Error ? e.message : String(e)})`)
    return { state: 'unknown', finalStatus: null, code: 'ReconcileFailed', evidence: JSON.stringify({ checks }) }
  }
  checks.push(`txStatusByCloid(${s.signer}, ${p.cloid}): ${tx.found ? `found, status ${tx.status ?? 'null'}` : 'not found'}`)
  if (tx.found && tx.status !== null) {
    const ok = SUCCESS.has(tx.status.toLowerCase())
    const note = `taken over: the re-send was refused (${s.code ?? 'rejected'}); txStatusByCloid: ${tx.status}`
    journal.update(s.id, { state: 'reconciled', finalStatus: ok ? tx.status : 'failed', code: ok ? null : tx.status, note })
    return ok
      ? { state: 'reconciled', finalStatus: tx.status, code: null }
      : { state: 'failed', finalStatus: 'failed', code: tx.status, evidence: JSON.stringify({ checks }) }
  }
  if (s.code !== null && NOT_DELIVERED.has(s.code))
    return { state: 'unknown', finalStatus: null, code: s.code, evidence: JSON.stringify({ checks }) }
  return {
    state: 'unresolved',
    finalStatus: 'unresolved',
    code: s.code,
    evidence: JSON.stringify({
      checks,
      why:
        'the exchange refused the stored bytes and has no record of the cloid; the first send (if any) is not known to this desk, so "never ' +
        'executed" cannot be proven',
    }),
  }
}
