/**
 * `POST /api/v3/earn`: parses the one-shape request body, checks it the way earn-api §4/§7
 * describes, verifies the EIP-712 signature of writes, and answers the envelope
 * (HTTP 200 always; `code` first; `trace_id` header on every response).
 */
import { randomBytes } from 'node:crypto'
import {
  EARN_REQUEST_TYPES,
  WITHDRAWAL_STATUSES,
  earnDigest,
  recoverEarnSigner,
  type CreateWithdrawalFields,
  type EarnRequestType,
  type OperationFields,
  type EarnSignedKind,
  type WithdrawalStatus,
  type WithdrawType,
} from '../../main/core/wire/earn'
import { EarnPool, EarnReject, type PageQuery } from './earn-pool'
import { TokenBuckets } from './token-buckets'

export interface EarnHttpResponse {
  status: 200
  body: string
  headers: Record<string, string>
}

export interface EarnHandlerOptions {
  /** requests per second per IP before 201005; false disables */
  ratePerSecond?: number | false
  now?: () => number
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/
const DIGITS = /^[0-9]+$/
const OPERATION_ID = /^withdraw:0x[0-9a-fA-F]{40}:(0|[1-9][0-9]*)$/
const MAX_LIMIT = 200
const DEFAULT_LIMIT = 50

const reject = (m: string) => new EarnReject(131004, m)

export class EarnHandler {
  private readonly buckets: TokenBuckets | null
  private readonly now: () => number
  /** requests handled, by outcome code (ground truth for tests and the admin view) */
  readonly counts = new Map<number, number>()

  constructor(
    readonly pool: EarnPool,
    opts: EarnHandlerOptions = {},
  ) {
    this.now = opts.now ?? Date.now
    const rate = opts.ratePerSecond ?? 20
    this.buckets = rate === false ? null : new TokenBuckets(rate, this.now)
  }

  async handle(rawBody: string, ip: string): Promise<EarnHttpResponse> {
    const traceId = randomBytes(16).toString('hex')
    let env: Record<string, unknown>
    try {
      const data = await this.dispatch(rawBody, ip)
      env = { code: 0, data, message: 'success' }
    } catch (e) {
      env = e instanceof EarnReject ? { code: e.code, message: e.message } : { code: 131002, message: 'backend unavailable' }
    }
    const code = env.code as number
    this.counts.set(code, (this.counts.get(code) ?? 0) + 1)
    return { status: 200, body: JSON.stringify(env), headers: { 'content-type': 'application/json', trace_id: traceId } }
  }

  private async dispatch(rawBody: string, ip: string): Promise<unknown> {
    if (this.buckets && !this.buckets.take(ip)) throw new EarnReject(201005, 'rate limit exceeded')
    if (this.pool.faults.unavailable) throw new EarnReject(131002, 'backend unavailable')
    let body: unknown
    try {
      body = JSON.parse(rawBody)
    } catch {
      throw reject('request body must be a JSON object')
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw reject('request body must be a JSON object')
    const b = body as Record<string, unknown>
    const type = b.type
    if (typeof type !== 'string' || !(EARN_REQUEST_TYPES as readonly string[]).includes(type)) {
      throw reject(`unknown type: ${typeof type === 'string' ? type : JSON.stringify(type ?? '')}`)
    }
    const t = type as EarnRequestType
    const pool = this.pool
    if (t === 'config') return pool.config()
    const user = userAddress(b)
    switch (t) {
      case 'account':
        return pool.account(user)
      case 'deposits':
        return pool.depositsPage(user, pageQuery(b))
      case 'yieldHistory':
        return pool.yieldPage(user, pageQuery(b))
      case 'withdrawals': {
        // operation_id is ignored on this read (spec §4: returns an unfiltered page).
        const q: PageQuery & { status?: WithdrawalStatus } = pageQuery(b)
        if (b.status !== undefined) {
          if (typeof b.status !== 'string' || !(WITHDRAWAL_STATUSES as readonly string[]).includes(b.status)) {
            throw reject(`invalid status: ${String(b.status)}`)
          }
          q.status = b.status as WithdrawalStatus
        }
        return pool.withdrawalsPage(user, q)
      }
      case 'withdrawal':
        return pool.withdrawal(user, operationId(b))
      case 'createWithdrawal':
        return this.create(b, user)
      case 'claimWithdrawal':
      case 'cancelWithdrawal':
        return this.claimOrCancel(t, b, user)
    }
  }

  private async create(b: Record<string, unknown>, user: string): Promise<unknown> {
    const userNonce = b.user_nonce
    if (userNonce === undefined) throw reject('user_nonce is required')
    if (typeof userNonce !== 'number' || !Number.isSafeInteger(userNonce) || userNonce < 0)
      throw reject('user_nonce must be a non-negative integer')
    const wt = b.withdraw_type
    if (wt === undefined) throw reject('withdraw_type is required')
    if (wt !== 'scheduled' && wt !== 'instant') throw reject('withdraw_type must be scheduled or instant')
    const assetId = b.asset_id
    if (assetId === undefined) throw reject('asset_id is required')
    if (typeof assetId !== 'number' || !Number.isInteger(assetId) || assetId < 0) throw reject('asset_id must be a non-negative integer')
    const amount = b.amount
    if (amount === undefined) throw reject('amount is required')
    if (typeof amount !== 'string' || !DIGITS.test(amount)) throw reject('amount must be a digit-only string')
    const { deadline, signature } = this.writeAuth(b)
    const fields = {
      user_address: user,
      user_nonce: userNonce,
      withdraw_type: wt as WithdrawType,
      asset_id: assetId,
      amount,
      deadline_unix_ms: deadline,
    }
    await this.verify('CreateWithdrawal', fields, signature, user)
    return this.executeWrite(() =>
      this.pool.createWithdrawal({ user, userNonce, type: wt as WithdrawType, assetId, gross: BigInt(amount), deadline }),
    )
  }

  private async claimOrCancel(t: 'claimWithdrawal' | 'cancelWithdrawal', b: Record<string, unknown>, user: string): Promise<unknown> {
    const opId = operationId(b)
    if (t === 'claimWithdrawal') return this.claim(b, user, opId)
    const { deadline, signature } = this.writeAuth(b)
    const fields = { user_address: user, operation_id: opId, deadline_unix_ms: deadline }
    await this.verify('CancelWithdrawal', fields, signature, user)
    return this.executeWrite(() => this.pool.cancelWithdrawal(user, opId))
  }

  /**
   * Claim: a signature-valid attempt that reaches the pool binds its digest first (spec §5),
   * and only then is its deadline judged, so a first claim refused for its deadline still binds.
   */
  private async claim(b: Record<string, unknown>, user: string, opId: string): Promise<unknown> {
    const { deadline, signature } = this.writeAuth(b, { deadlineLater: true })
    const fields = { user_address: user, operation_id: opId, deadline_unix_ms: deadline }
    await this.verify('ClaimWithdrawal', fields, signature, user)
    const digest = earnDigest('ClaimWithdrawal', fields, this.pool.settings.domain, this.pool.settings.chainId)
    return this.executeWrite(() => {
      this.pool.bindClaimAttempt(user, opId, digest)
      if (deadline <= this.now()) throw reject('deadline_unix_ms must be in the future')
      return this.pool.claimWithdrawal(user, opId, digest)
    })
  }

  /** Applies the upstream-timeout fault: 131006 with the write applied or not. */
  private executeWrite<T>(run: () => T): T {
    const mode = this.pool.faults.timeout
    if (mode === 'not-executed') throw new EarnReject(131006, 'upstream timeout')
    const out = run()
    if (mode === 'executed') throw new EarnReject(131006, 'upstream timeout')
    return out
  }

  private writeAuth(b: Record<string, unknown>, o: { deadlineLater?: boolean } = {}): { deadline: number; signature: `0x${string}` } {
    const deadline = b.deadline_unix_ms
    if (deadline === undefined) throw reject('deadline_unix_ms is required')
    if (typeof deadline !== 'number' || !Number.isSafeInteger(deadline) || deadline < 0)
      throw reject('deadline_unix_ms must be a non-negative integer')
    const sig = b.user_signature
    if (sig === undefined) throw reject('user_signature is required')
    if (typeof sig !== 'string' || !SIGNATURE.test(sig)) throw reject('user_signature must be 0x + 130 hex chars (65 bytes)')
    if (!o.deadlineLater && deadline <= this.now()) throw reject('deadline_unix_ms must be in the future')
    const v = parseInt(sig.slice(130), 16)
    if (v !== 0 && v !== 1 && v !== 27 && v !== 28) throw reject('invalid signature recovery id')
    return { deadline, signature: sig as `0x${string}` }
  }

  private async verify(
    kind: EarnSignedKind,
    fields: CreateWithdrawalFields | OperationFields,
    signature: `0x${string}`,
    user: string,
  ): Promise<void> {
    let recovered: string
    try {
      recovered = await recoverEarnSigner(kind, fields as never, this.pool.settings.domain, this.pool.settings.chainId, signature)
    } catch {
      throw reject('withdrawal signer does not match user')
    }
    if (recovered.toLowerCase() !== user.toLowerCase()) throw reject('withdrawal signer does not match user')
  }
}

function userAddress(b: Record<string, unknown>): string {
  const u = b.user_address
  if (u === undefined || u === null || u === '') throw reject('user_address is required')
  if (typeof u !== 'string' || !ADDRESS.test(u)) throw reject('user_address must be 0x + 40 hex chars')
  return u
}

function operationId(b: Record<string, unknown>): string {
  const o = b.operation_id
  if (o === undefined || o === null || o === '') throw reject('operation_id is required')
  if (typeof o !== 'string' || !OPERATION_ID.test(o)) throw reject('operation_id must be withdraw:<user_address>:<user_nonce>')
  return o
}

function pageQuery(b: Record<string, unknown>): PageQuery {
  const q: PageQuery = { limit: DEFAULT_LIMIT }
  if (b.limit !== undefined) {
    if (typeof b.limit !== 'number' || !Number.isInteger(b.limit) || b.limit < 1) throw reject('limit must be a positive integer')
    if (b.limit > MAX_LIMIT) throw reject(`limit exceeds max ${MAX_LIMIT}`)
    q.limit = b.limit
  }
  if (b.asset_id !== undefined) {
    if (typeof b.asset_id !== 'number' || !Number.isInteger(b.asset_id) || b.asset_id < 0)
      throw reject('asset_id must be a non-negative integer')
    q.assetId = b.asset_id
  }
  if (b.before_id !== undefined && b.before_id !== null) {
    const c = b.before_id
    const n = typeof c === 'number' ? c : typeof c === 'string' && DIGITS.test(c) ? Number(c) : NaN
    if (!Number.isSafeInteger(n) || n < 0) throw reject('before_id must be a cursor from next_before_id')
    q.beforeId = n
  }
  return q
}
