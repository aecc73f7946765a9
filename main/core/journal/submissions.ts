import type Database from 'better-sqlite3'
import { DeskError } from '../errors/desk-error'
import {
  SUBMISSION_STATES,
  UNRESOLVED_STATES,
  isFinalState,
  type NewSubmission,
  type NonceKind,
  type Submission,
  type SubmissionEvent,
  type SubmissionFilter,
  type SubmissionState,
  type SubmissionUpdate,
} from './types'

interface SubmissionRow {
  id: number
  channel: 'trade' | 'earn'
  key: string
  network: string
  account: string
  signer: string
  action_type: string
  summary: string
  nonce: string | null
  business_nonce: string | null
  body: string
  state: SubmissionState
  final_status: string | null
  code: string | null
  tx_hash: string | null
  trace_id: string | null
  response: string | null
  attempts: number
  created_at: number
  updated_at: number
  resolved_at: number | null
  submit_height: string | null
  evidence: string | null
  advice: string | null
  acknowledged_at: number | null
  ack_note: string | null
  oids: string | null
  proposal_id: string | null
}

function toSubmission(r: SubmissionRow): Submission {
  return {
    id: r.id,
    channel: r.channel,
    key: r.key,
    network: r.network,
    account: r.account,
    signer: r.signer,
    actionType: r.action_type,
    summary: r.summary,
    nonce: r.nonce,
    businessNonce: r.business_nonce,
    body: r.body,
    state: r.state,
    finalStatus: r.final_status,
    code: r.code,
    txHash: r.tx_hash,
    traceId: r.trace_id,
    response: r.response,
    attempts: r.attempts,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    resolvedAt: r.resolved_at,
    submitHeight: r.submit_height,
    evidence: r.evidence,
    advice: r.advice,
    acknowledgedAt: r.acknowledged_at,
    ackNote: r.ack_note,
    oids: r.oids ? r.oids.split(' ').filter(Boolean) : [],
    proposalId: r.proposal_id,
  }
}

/**
 * Every order id a write's answer or its reconciliation evidence names (`oid` keys at any depth:
 * an order leaf, a batch's statuses, an orderStatus read), merged with those already known.
 */
export function oidsIn(texts: readonly (string | null | undefined)[], known: readonly string[] = []): string[] {
  const out = new Set(known)
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x)
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'oid' && (typeof x === 'string' || typeof x === 'number') && /^[0-9]+$/.test(String(x))) out.add(String(x))
        else walk(x)
      }
    }
  }
  for (const t of texts) {
    if (!t) continue
    try {
      walk(JSON.parse(t))
    } catch {
      // not JSON (a plain note): no ids
    }
  }
  return [...out]
}

const U64 = /^(0|[1-9][0-9]*)$/

export class NonceConflictError extends DeskError {
  constructor(kind: NonceKind, network: string, signer: string, nonce: string, last: string) {
    super('NonceConflict', `${kind} nonce ${nonce} for ${signer} on ${network} is not above the last one used (${last})`, {
      kind,
      network,
      signer,
      nonce,
      last,
    })
  }
}

/** Allowed moves of the state machine; anything else is a programming error, refused loudly. */
const TRANSITIONS: Record<SubmissionState, readonly SubmissionState[]> = {
  signed: ['sent', 'rejected', 'reconciled'],
  sent: ['sent', 'accepted', 'rejected', 'failed', 'unknown', 'unresolved', 'reconciled'],
  unknown: ['unknown', 'sent', 'reconciled', 'accepted', 'rejected', 'failed', 'unresolved'],
  // Later evidence (an order status, a withdrawal record) can still settle an unresolved write.
  unresolved: ['unresolved', 'reconciled', 'failed'],
  accepted: ['reconciled'],
  rejected: ['reconciled'],
  failed: ['failed'],
  reconciled: ['reconciled'],
}

/** The submissions table, its history, and the nonce sequences reserved with them. */
export class SubmissionStore {
  private readonly insertStmt: Database.Statement
  private readonly eventStmt: Database.Statement
  private readonly getStmt: Database.Statement
  private readonly nonceGet: Database.Statement
  private readonly nonceSet: Database.Statement

  constructor(
    private readonly db: Database.Database,
    private readonly now: () => number,
  ) {
    this.insertStmt = db.prepare(`INSERT INTO submissions
      (channel, key, network, account, signer, action_type, summary, nonce, business_nonce, body, state, trace_id, submit_height, created_at, updated_at)
      VALUES (@channel, @key, @network, @account, @signer, @action_type, @summary, @nonce, @business_nonce, @body, 'signed',
        @trace_id, @submit_height, @now, @now)`)
    this.eventStmt = db.prepare(
      `INSERT INTO submission_events (submission_id, at, state, final_status, code, note) VALUES (?, ?, ?, ?, ?, ?)`,
    )
    this.getStmt = db.prepare(`SELECT * FROM submissions WHERE id = ?`)
    this.nonceGet = db.prepare(`SELECT last FROM nonces WHERE network = ? AND signer = ? AND kind = ?`)
    this.nonceSet = db.prepare(`INSERT INTO nonces (network, signer, kind, last) VALUES (?, ?, ?, ?)
      ON CONFLICT (network, signer, kind) DO UPDATE SET last = excluded.last`)
  }

  /** Last nonce used for (network, signer, kind), or null when none was ever used. */
  lastNonce(network: string, signer: string, kind: NonceKind): bigint | null {
    const row = this.nonceGet.get(network, signer.toLowerCase(), kind) as { last: string } | undefined
    return row ? BigInt(row.last) : null
  }

  private claimNonce(network: string, signer: string, kind: NonceKind, nonce: string): void {
    if (!U64.test(nonce)) throw new DeskError('InvalidNonce', `${kind} nonce must be a decimal u64 string, got "${nonce}"`, { kind, nonce })
    const last = this.lastNonce(network, signer, kind)
    if (last !== null && BigInt(nonce) <= last) throw new NonceConflictError(kind, network, signer, nonce, last.toString())
    this.nonceSet.run(network, signer.toLowerCase(), kind, nonce)
  }

  /**
   * Records a signed submission before it is sent. In the same transaction the envelope nonce
   * (and a withdraw's business nonce) is checked against the persisted last one and becomes
   * the new last one, so no nonce is ever handed out twice, even across processes and restarts.
   * Throws NonceConflictError when another writer took the nonce first (re-sign with a new one).
   */
  record(input: NewSubmission): Submission {
    const t = this.now()
    const run = this.db.transaction((): number => {
      if (input.channel === 'trade' && input.nonce !== null) this.claimNonce(input.network, input.signer, 'envelope', input.nonce)
      if (input.channel === 'trade' && input.actionType === 'withdraw' && input.businessNonce) {
        this.claimNonce(input.network, input.account, 'withdraw', input.businessNonce)
      }
      const info = this.insertStmt.run({
        channel: input.channel,
        key: input.key,
        network: input.network,
        account: input.account.toLowerCase(),
        signer: input.signer.toLowerCase(),
        action_type: input.actionType,
        summary: input.summary,
        nonce: input.nonce,
        business_nonce: input.businessNonce ?? null,
        body: input.body,
        trace_id: input.traceId ?? null,
        submit_height: input.submitHeight ?? null,
        now: t,
      })
      const id = Number(info.lastInsertRowid)
      this.eventStmt.run(id, t, 'signed', null, null, null)
      return id
    })
    return this.get(run.immediate())!
  }

  get(id: number): Submission | null {
    const row = this.getStmt.get(id) as SubmissionRow | undefined
    return row ? toSubmission(row) : null
  }

  /** Applies a state change and appends it to the history, atomically. */
  update(id: number, u: SubmissionUpdate): Submission {
    const t = this.now()
    const run = this.db.transaction(() => {
      const cur = this.get(id)
      if (!cur) throw new DeskError('SubmissionNotFound', `no journal entry ${id}`, { id })
      if (!TRANSITIONS[cur.state].includes(u.state)) {
        throw new DeskError('InvalidJournalTransition', `journal entry ${id} cannot move from ${cur.state} to ${u.state}`, {
          id,
          from: cur.state,
          to: u.state,
        })
      }
      const resolvedAt = isFinalState(u.state) ? (cur.resolvedAt ?? t) : null
      this.db
        .prepare(
          `UPDATE submissions SET state = ?, final_status = ?, code = ?, tx_hash = ?, trace_id = ?, response = ?,
          attempts = attempts + ?, updated_at = ?, resolved_at = ?, evidence = ?, advice = ?, oids = ? WHERE id = ?`,
        )
        .run(
          u.state,
          u.finalStatus !== undefined ? u.finalStatus : cur.finalStatus,
          u.code !== undefined ? u.code : cur.code,
          u.txHash !== undefined ? u.txHash : cur.txHash,
          u.traceId !== undefined ? u.traceId : cur.traceId,
          u.response !== undefined ? u.response : cur.response,
          u.attempt ? 1 : 0,
          t,
          resolvedAt,
          u.evidence !== undefined ? u.evidence : cur.evidence,
          u.advice !== undefined ? u.advice : cur.advice,
          // The oid arrives with the answer (accept) or the reconciler's evidence: kept for search.
          oidsIn([u.response, u.evidence], cur.oids).join(' ') || null,
          id,
        )
      this.eventStmt.run(id, t, u.state, u.finalStatus ?? null, u.code ?? null, u.note ?? null)
    })
    run.immediate()
    return this.get(id)!
  }

  /**
   * Journals an operator's acknowledgement of an unresolved outcome (what they checked, what
   * they decided). Only then may the write's cloid be used again. Refused for any other state
   * and for a second acknowledgement.
   */
  acknowledgeUnresolved(id: number, note: string): Submission {
    const text = note.trim()
    if (text.length === 0)
      throw new DeskError('AcknowledgementNoteRequired', 'an acknowledgement needs a note saying what was checked', { id })
    if (text.length > 1000)
      throw new DeskError('AcknowledgementNoteTooLong', 'the acknowledgement note is limited to 1000 characters', { id })
    const t = this.now()
    this.db
      .transaction(() => {
        const cur = this.get(id)
        if (!cur) throw new DeskError('SubmissionNotFound', `no journal entry ${id}`, { id })
        if (cur.state !== 'unresolved')
          throw new DeskError('NotUnresolved', `journal entry ${id} is ${cur.state}, not unresolved; nothing to acknowledge`, {
            id,
            state: cur.state,
          })
        if (cur.acknowledgedAt !== null) throw new DeskError('AlreadyAcknowledged', `journal entry ${id} was already acknowledged`, { id })
        this.db.prepare(`UPDATE submissions SET acknowledged_at = ?, ack_note = ?, updated_at = ? WHERE id = ?`).run(t, text, t, id)
        this.eventStmt.run(id, t, 'unresolved', cur.finalStatus, cur.code, `acknowledged by the operator: ${text}`)
      })
      .immediate()
    return this.get(id)!
  }

  /** Records the team proposal this write executes (team mode: an approved proposal, or a write recorded as allowed). */
  linkProposal(id: number, proposalId: string): Submission {
    if (!/^0x[0-9a-f]{64}$/.test(proposalId)) throw new DeskError('InvalidProposalId', `not a proposal id: ${proposalId}`)
    const r = this.db.prepare(`UPDATE submissions SET proposal_id = ? WHERE id = ?`).run(proposalId, id)
    if (r.changes === 0) throw new DeskError('SubmissionNotFound', `no journal entry ${id}`, { id })
    return this.get(id)!
  }

  history(id: number): SubmissionEvent[] {
    const rows = this.db.prepare(`SELECT * FROM submission_events WHERE submission_id = ? ORDER BY id`).all(id) as {
      submission_id: number
      at: number
      state: SubmissionState
      final_status: string | null
      code: string | null
      note: string | null
    }[]
    return rows.map((r) => ({
      submissionId: r.submission_id,
      at: r.at,
      state: r.state,
      finalStatus: r.final_status,
      code: r.code,
      note: r.note,
    }))
  }

  /** Entries whose outcome is not final yet (signed, sent, unknown), oldest first. */
  unresolved(network?: string): Submission[] {
    return this.list({ network, state: [...UNRESOLVED_STATES], order: 'oldest' })
  }

  /** Latest entry with this key (cloid / operation id) and, optionally, action type. */
  findByKey(network: string, key: string, actionType?: string): Submission | null {
    const rows = this.list({ network, key, actionType, order: 'newest', limit: 1 })
    return rows[0] ?? null
  }

  list(f: SubmissionFilter = {}): Submission[] {
    const { sql, params } = whereClause(f)
    const order = f.order === 'oldest' ? 'ASC' : 'DESC'
    const limit = f.limit !== undefined ? clampInt(f.limit, 1, 100_000, 'limit') : -1
    const offset = f.offset !== undefined ? clampInt(f.offset, 0, Number.MAX_SAFE_INTEGER, 'offset') : 0
    const rows = this.db
      .prepare(`SELECT * FROM submissions ${sql} ORDER BY created_at ${order}, id ${order} LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as SubmissionRow[]
    return rows.map(toSubmission)
  }

  actionTypes(network: string): string[] {
    return (
      this.db.prepare(`SELECT DISTINCT action_type AS t FROM submissions WHERE network = ? ORDER BY action_type`).all(network) as {
        t: string
      }[]
    ).map((r) => r.t)
  }

  count(f: SubmissionFilter = {}): number {
    const { sql, params } = whereClause(f)
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM submissions ${sql}`).get(...params) as { n: number }).n
  }
}

function clampInt(n: number, min: number, max: number, field: string): number {
  if (!Number.isInteger(n) || n < min || n > max)
    throw new DeskError('InvalidQuery', `${field} must be an integer ${min}..${max}`, { field })
  return n
}

function asList<T>(v: T | T[] | undefined): T[] | undefined {
  return v === undefined ? undefined : Array.isArray(v) ? v : [v]
}

function whereClause(f: SubmissionFilter): { sql: string; params: (string | number)[] } {
  const parts: string[] = []
  const params: (string | number)[] = []
  if (f.network !== undefined) {
    parts.push('network = ?')
    params.push(f.network)
  }
  if (f.account !== undefined) {
    parts.push('account = ?')
    params.push(f.account.toLowerCase())
  }
  if (f.signer !== undefined) {
    parts.push('signer = ?')
    params.push(f.signer.toLowerCase())
  }
  if (f.channel !== undefined) {
    parts.push('channel = ?')
    params.push(f.channel)
  }
  if (f.key !== undefined) {
    parts.push('key = ?')
    params.push(f.key)
  }
  const types = asList(f.actionType)
  if (types && types.length > 0) {
    parts.push(`action_type IN (${types.map(() => '?').join(',')})`)
    params.push(...types)
  }
  const states = asList(f.state)
  if (states && states.length > 0) {
    for (const s of states) if (!SUBMISSION_STATES.includes(s)) throw new DeskError('InvalidQuery', `unknown state "${s}"`, { state: s })
    parts.push(`state IN (${states.map(() => '?').join(',')})`)
    params.push(...states)
  }
  if (f.since !== undefined) {
    parts.push('created_at >= ?')
    params.push(clampInt(f.since, 0, Number.MAX_SAFE_INTEGER, 'since'))
  }
  if (f.until !== undefined) {
    parts.push('created_at <= ?')
    params.push(clampInt(f.until, 0, Number.MAX_SAFE_INTEGER, 'until'))
  }
  const q = f.q?.trim()
  if (q && /^[0-9]+$/.test(q)) {
    // A number is an order id or a nonce, matched whole (a substring "4" would match most hashes).
    parts.push(`(instr(' ' || coalesce(oids, '') || ' ', ' ' || ? || ' ') > 0 OR nonce = ? OR business_nonce = ?)`)
    params.push(q, q, q)
  } else if (q) {
    // Free text over what an operator has in hand: cloid, tx hash, trace id, account, the summary.
    const like = `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    parts.push(
      `(lower(key) LIKE ? ESCAPE '\\' OR lower(coalesce(tx_hash, '')) LIKE ? ESCAPE '\\' OR lower(coalesce(trace_id, '')) LIKE ? ESCAPE '\\' OR ` +
        `lower(summary) LIKE ? ESCAPE '\\' OR lower(action_type) LIKE ? ESCAPE '\\' OR account LIKE ? ESCAPE '\\' OR signer LIKE ? ESCAPE '\\' OR ` +
        `coalesce(proposal_id, '') LIKE ? ESCAPE '\\')`,
    )
    params.push(like, like, like, like, like, like, like, like)
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params }
}
