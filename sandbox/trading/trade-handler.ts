/**
 * POST /trade: size and rate limits, envelope parsing, signer recovery and authority (owner or
 * agent), nonce, fault injection, admission, then waiting for the block within the wait budget.
 */
import { randomBytes } from 'node:crypto'
import type { Address, Hex } from 'viem'
import type { TradeResponse } from '../../main/core/wire/actions'
import { errorCode } from '../errors'
import type { BlockProducer } from './block-producer'
import { MAX_TRADE_BODY_BYTES, parseEnvelope, ShapeError, type ParsedEnvelope } from './envelope'
import { checkOwnerAction } from './owner-actions'
import type { SlidingWindow, TokenBuckets } from './rate-limit'
import type { ServiceCore } from './service-core'
import { accountAdmission, isCancelOnly } from './tx-admission'
import { isKnownSigner, recoverAuthority, signedForOtherChain } from './tx-authority'
import type { ExecResult } from './tx-execution'
import { nonceProblem } from './tx-nonces'
import type { HttpResult } from './types'

const TRACE_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/

export interface TradeLimits {
  /** per-IP token buckets; null when rate limits are off */
  tradeBuckets: TokenBuckets | null
  /** per-signer sliding window; null when rate limits are off */
  signerWindow: SlidingWindow | null
  maxPending: number
  waitBudgetMs: number
}

function traceIdOf(headers: Record<string, string | undefined>): string {
  const given = headers['x-trace-id'] ?? headers['X-Trace-Id']
  return given && TRACE_ID_RE.test(given) ? given : randomBytes(16).toString('hex')
}

function reply(status: number, body: TradeResponse, traceId: string): HttpResult {
  return { status, body, headers: { 'x-trace-id': traceId } }
}

function rejected(traceId: string, code: string, txHash?: Hex, status = 200, retryAfterMs?: number): HttpResult {
  const body: TradeResponse = { submission_status: 'rejected' }
  if (txHash) body.tx_hash = txHash
  body.error = retryAfterMs === undefined ? { code } : { code, retry_after_ms: retryAfterMs }
  return reply(status, body, traceId)
}

function resultReply(r: ExecResult, txHash: Hex, traceId: string): HttpResult {
  if (r.submission === 'accepted') return reply(200, { submission_status: 'accepted', tx_hash: txHash, response: r.response }, traceId)
  return rejected(traceId, r.code, txHash)
}

export function createTradeHandler(core: ServiceCore, blocks: BlockProducer, limits: TradeLimits) {
  const { state, faults, chainId, now, feeAccount } = core
  const { tradeBuckets, signerWindow, maxPending, waitBudgetMs } = limits

  return async function handleTrade(rawBody: string, headers: Record<string, string | undefined>, ip: string): Promise<HttpResult> {
    const traceId = traceIdOf(headers)
    if (Buffer.byteLength(rawBody, 'utf8') > MAX_TRADE_BODY_BYTES) return rejected(traceId, 'RequestTooLarge', undefined, 413)
    if (core.fires(faults.rateLimited)) return rejected(traceId, 'RateLimited', undefined, 429, faults.rateLimited?.retryAfterMs ?? 1000)
    const ipWait = tradeBuckets?.take(ip) ?? 0
    if (ipWait > 0) return rejected(traceId, 'RateLimited', undefined, 429, ipWait)

    let p: ParsedEnvelope
    try {
      p = parseEnvelope(rawBody, state, chainId)
    } catch (e) {
      if (e instanceof ShapeError) return rejected(traceId, e.code, undefined, 400)
      const code = errorCode(e)
      if (code !== null) return rejected(traceId, code === 'EncodeLengthOverflow' ? code : 'MalformedTx', undefined, 400)
      throw e
    }
    const txHash = p.txHash

    let authority: Address
    try {
      authority = await recoverAuthority(p, chainId, chainId)
    } catch {
      return rejected(traceId, 'BadSignature', txHash)
    }
    const signerWait = signerWindow?.take(authority) ?? 0
    if (signerWait > 0) return rejected(traceId, 'RateLimited', txHash, 429, signerWait)
    if (p.expiresAfterMs !== undefined && BigInt(now()) > p.expiresAfterMs) return rejected(traceId, 'ExpiredTx', txHash)

    let owner: Address
    if (p.agentEpoch !== undefined) {
      const slot = state.agentIndex.get(authority)
      if (!slot) return rejected(traceId, (await signedForOtherChain(state, p, chainId)) ? 'WrongChainId' : 'UnknownAgent', txHash)
      const epoch = state.accounts.get(slot.owner)!.agents[slot.slot]!.epoch
      if (epoch !== p.agentEpoch) return rejected(traceId, 'AgentEpochMismatch', txHash)
      owner = slot.owner
    } else {
      if (state.agentIndex.has(authority)) return rejected(traceId, 'DirectSignerIsActiveAgent', txHash)
      owner = authority
    }
    if (!isKnownSigner(state, authority) && (await signedForOtherChain(state, p, chainId))) return rejected(traceId, 'WrongChainId', txHash)

    if (nonceProblem(state, authority, p.nonce, now()) || blocks.isNoncePending(authority, p.nonce))
      return rejected(traceId, 'BadNonce', txHash)

    const a = p.action
    if (faults.placeOrderSuspended) {
      const cancelOnly =
        a.type === 'cancel' || a.type === 'cancelAll' || (a.type === 'batch' && a.items.length > 0 && a.items.every(isCancelOnly))
      if (!cancelOnly && (a.type === 'order' || a.type === 'modify' || a.type === 'batch')) {
        return rejected(traceId, 'PlaceOrderSuspended', txHash, 503, 1000)
      }
    }

    if (a.type === 'order' || a.type === 'cancel' || a.type === 'cancelAll' || a.type === 'modify' || a.type === 'batch') {
      const acct = state.accounts.get(owner)
      if (!acct) return rejected(traceId, 'AccountNotFound', txHash)
      const code = accountAdmission(core, acct, p)
      if (code) return rejected(traceId, code, txHash)
    } else {
      const pendingWithdrawNonces = blocks.pendingWithdrawNonces
      const code = checkOwnerAction(
        { state, signer: owner, nowMs: now(), staleMarks: faults.staleMarks, feeAccount, pendingWithdrawNonces },
        a,
      )
      if (code) return rejected(traceId, code, txHash)
    }

    if (core.fires(faults.queryLagBackpressure ?? null)) return rejected(traceId, 'QueryLagBackpressure', txHash, 503)
    if (blocks.pendingCount >= maxPending) return rejected(traceId, 'TooManyPending', txHash, 503, 50)
    if (core.fires(faults.unavailable503)) {
      return reply(503, { submission_status: 'timeout', tx_hash: txHash, error: { code: 'Unavailable', retry_after_ms: 500 } }, traceId)
    }
    if (faults.nodeUnreachable504 && core.fires(faults.nodeUnreachable504)) {
      const executed = faults.nodeUnreachable504?.executed ?? false
      if (executed) await blocks.enqueue(p, authority, owner)
      return reply(504, { submission_status: 'timeout', tx_hash: txHash, error: { code: 'NodeUnreachable' } }, traceId)
    }
    if (faults.tradeTimeout && core.fires(faults.tradeTimeout)) {
      const executed = faults.tradeTimeout?.executed ?? false
      if (executed) void blocks.enqueue(p, authority, owner)
      await new Promise((r) => setTimeout(r, waitBudgetMs))
      return reply(200, { submission_status: 'timeout', tx_hash: txHash }, traceId)
    }

    const outcome = blocks.enqueue(p, authority, owner)
    let timeoutHandle: ReturnType<typeof setTimeout> | undefined
    const budget = new Promise<null>((r) => {
      timeoutHandle = setTimeout(() => r(null), waitBudgetMs)
    })
    const r = await Promise.race([outcome, budget])
    clearTimeout(timeoutHandle)
    if (r === null) return reply(200, { submission_status: 'timeout', tx_hash: txHash }, traceId)
    return resultReply(r, txHash, traceId)
  }
}
