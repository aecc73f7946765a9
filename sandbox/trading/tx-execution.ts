/**
 * Executing one admitted transaction inside a block: the checks that may have changed since
 * admission (expiry, nonce, agent slot), then the order-book items or the owner action, and the
 * ground-truth record of what happened.
 */
import type { Address } from 'viem'
import type { BatchItem, BatchItemResponse, Eip712Action, TradeResponseBody } from '../../main/core/wire/actions'
import { cloidsOf } from './tx-cloids'
import type { ParsedEnvelope } from './envelope'
import type { ForcedFailure } from './fault-injection'
import { cancelAll, cancelOrder, modifyOrder, placeOrder, type BlockCtx } from './matching'
import { applyOwnerAction, checkOwnerAction } from './owner-actions'
import type { ServiceCore } from './service-core'
import type { Account, TxRecord } from './state'
import { toPlaceRequest } from './tx-admission'
import { consumeNonce, nonceProblem } from './tx-nonces'

export type ExecResult = { submission: 'accepted'; response: TradeResponseBody } | { submission: 'rejected'; code: string }

export interface PendingTx {
  parsed: ParsedEnvelope
  authority: Address
  owner: Address
  settle: (r: ExecResult) => void
  forced: ForcedFailure | null
}

/** The response of a transaction that failed as a whole with no single code: every leaf is `failed`. */
function failedResponse(a: ParsedEnvelope['action']): TradeResponseBody {
  const leaf = { error: 'failed' }
  switch (a.type) {
    case 'batch':
      return {
        type: 'batch',
        statuses: a.items.map((it) =>
          it.type === 'cancelAll' ? { type: 'cancelAll', statuses: [leaf] } : { type: it.type, status: leaf },
        ),
      } as TradeResponseBody
    case 'cancelAll':
      return { type: 'cancelAll', statuses: [leaf] } as TradeResponseBody
    case 'order':
    case 'cancel':
    case 'modify':
      return { type: a.type, status: leaf } as TradeResponseBody
    default:
      return { type: 'default', status: leaf } as TradeResponseBody
  }
}

function execItem(ctx: BlockCtx, acct: Account, it: BatchItem): BatchItemResponse {
  const { state } = ctx
  const marketId = Number(it.market_id)
  const target = (x: { oid?: string | undefined; cloid?: string | undefined }) => ({
    oid: x.oid === undefined ? undefined : Number(x.oid),
    cloid: x.cloid,
  })
  switch (it.type) {
    case 'order': {
      const m = state.markets.get(marketId)
      if (!m) return { type: 'order', status: { error: 'marketnotfound' } }
      const req = toPlaceRequest(m, it)
      if (!req) return { type: 'order', status: { error: 'tick' } }
      return { type: 'order', status: placeOrder(ctx, acct, m, req) }
    }
    case 'cancel':
      return { type: 'cancel', status: cancelOrder(ctx, acct, marketId, target(it)) }
    case 'cancelAll':
      return { type: 'cancelAll', statuses: cancelAll(ctx, acct, marketId) }
    case 'modify': {
      const m = state.markets.get(marketId)
      if (!m) return { type: 'modify', status: { error: 'marketnotfound' } }
      const req = toPlaceRequest(m, it.replacement)
      if (!req) return { type: 'modify', status: { error: 'tick' } }
      return { type: 'modify', status: modifyOrder(ctx, acct, marketId, target(it), req) }
    }
  }
}

export function executeTx(core: ServiceCore, ctx: BlockCtx, tx: PendingTx, txIndex: number): ExecResult {
  const { state, faults, feeAccount } = core
  const p = tx.parsed
  if (p.expiresAfterMs !== undefined && BigInt(ctx.timeMs) > p.expiresAfterMs) return { submission: 'rejected', code: 'ExpiredTx' }
  if (nonceProblem(state, tx.authority, p.nonce, ctx.timeMs)) return { submission: 'rejected', code: 'BadNonce' }
  if (p.agentEpoch !== undefined) {
    // the slot may have been revoked or re-approved since admission
    const slot = state.agentIndex.get(tx.authority)
    if (!slot || slot.owner !== tx.owner) return { submission: 'rejected', code: 'UnknownAgent' }
    if (state.accounts.get(slot.owner)!.agents[slot.slot]!.epoch !== p.agentEpoch)
      return { submission: 'rejected', code: 'AgentEpochMismatch' }
  }
  consumeNonce(state, tx.authority, p.nonce)
  const acct = state.accounts.get(tx.owner)
  const a = p.action
  let result: ExecResult
  let status = 'success'
  if (tx.forced?.kind === 'envelope') {
    // injected envelope-level execution failure: included, nothing applied
    result = { submission: 'rejected', code: tx.forced.code }
    status = tx.forced.code.toLowerCase()
  } else if (tx.forced?.kind === 'failed') {
    // injected failure with no single code: included, nothing applied
    result = { submission: 'accepted', response: failedResponse(a) }
    status = 'failed'
  } else if (a.type === 'order' || a.type === 'cancel' || a.type === 'cancelAll' || a.type === 'modify' || a.type === 'batch') {
    if (!acct) {
      result = { submission: 'rejected', code: 'AccountNotFound' }
      status = 'accountnotfound'
    } else if (a.type === 'batch') {
      result = { submission: 'accepted', response: { type: 'batch', statuses: a.items.map((it) => execItem(ctx, acct, it)) } }
    } else {
      result = { submission: 'accepted', response: execItem(ctx, acct, a) as TradeResponseBody }
    }
  } else {
    const code = checkOwnerAction(
      { state, signer: tx.owner, nowMs: ctx.timeMs, staleMarks: faults.staleMarks, feeAccount, pendingWithdrawNonces: new Set() },
      a as Eip712Action,
    )
    if (code) {
      status = code.toLowerCase()
      result = { submission: 'accepted', response: { type: 'default', status: { error: status } } }
    } else {
      applyOwnerAction(ctx, tx.owner, a as Eip712Action, { txHash: p.txHash, txIndex })
      result = { submission: 'accepted', response: { type: 'default' } }
    }
  }
  const rec: TxRecord = {
    txHash: p.txHash,
    height: ctx.height,
    txIndex,
    authority: tx.authority,
    owner: tx.owner,
    actionType: a.type,
    nonce: p.nonce.toString(),
    cloids: cloidsOf(p),
    status,
  }
  state.executed.push(rec)
  // ground truth for tests: bounded so a session of hours does not grow without limit
  if (state.executed.length > 50_000) state.executed.splice(0, 25_000)
  for (const c of rec.cloids) state.txByCloid.set(`${tx.authority}:${c}`, rec)
  return result
}
