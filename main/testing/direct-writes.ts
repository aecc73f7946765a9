/**
 * Test support: the features' writes over a bare write context (no desk core, no policy book),
 * with the signatures the service-level and chaos suites use. Each write is the feature's own
 * `WriteSpec` (validation, preview, the exact action) signed, journaled and sent by the real
 * submitter or earn client; the desk's guardrails and the decision step are not run here (the
 * write pipeline's own test, core/writes/pipeline.integration.test.ts, covers them).
 */
import type { WriteSide } from '../core/session'
import type { EarnServiceContext, WriteContext } from '../core/session/write-context'
import type { RunWrite, SubmittedWrite, WriteIntent, WriteResult, WriteSpec } from '../core/writes'
import * as agents from '../core/features/agents/agents-write.service'
import { earnCancelWrite, earnClaimWrite, earnRequestWrite } from '../core/features/earn/earn.service'
import * as orders from '../core/features/orders/orders.service'
import { repayWrite, settleWrite, type RepayRequest, type SettleRequest } from '../core/features/settle-repay/settle-repay.service'
import {
  activationWrite,
  transferWrite,
  withdrawWrite,
  type TransferRequest,
  type WithdrawRequest,
} from '../core/features/transfers/transfers.service'
import type { WithdrawType } from '../core/wire/earn'

type Contexts = { ctx?: WriteContext; earnCtx?: EarnServiceContext }

/** Runs a spec's describe over the given contexts, then signs and sends what it describes. */
export function directRun(c: Contexts): RunWrite {
  return async <F>(spec: WriteSpec<F>): Promise<WriteResult<F>> => {
    const x = await spec.describe(c as WriteSide)
    const intent: WriteIntent = {
      kind: spec.kind,
      network: '',
      exchange: '',
      account: x.account,
      signer: null,
      cloid: '',
      action: {},
      usdAtoms: null,
      title: x.title,
      preview: x.preview,
    }
    if (x.signing.channel === 'trade') {
      const req = x.signing.afterDecision ? await x.signing.afterDecision() : x.signing.request
      const r = await c.ctx!.submitter.submit(req)
      const s = r.submission
      return {
        state: 'submitted',
        intent,
        outcome: {
          journalId: s.id,
          cloid: s.key,
          state: s.state,
          finalStatus: s.finalStatus,
          code: s.code,
          txHash: s.txHash,
          traceId: s.traceId,
        },
        leaves: r.leaves,
        feature: x.feature,
      }
    }
    const r = await x.signing.sign(c.earnCtx!.earn)
    const s = r.submission
    return {
      state: 'submitted',
      intent,
      outcome: {
        journalId: s.id,
        cloid: s.key,
        state: s.state,
        finalStatus: s.finalStatus,
        code: s.code,
        txHash: s.txHash,
        traceId: s.traceId,
      },
      leaves: [],
      earn: r,
      feature: x.feature,
    }
  }
}

const sent = <F>(r: WriteResult<F>): SubmittedWrite<F> => {
  if (r.state !== 'submitted') throw new Error('a direct write cannot be proposed')
  return r
}

export async function settle(ctx: WriteContext, req: SettleRequest) {
  const r = sent(await directRun({ ctx })(settleWrite(req)))
  return { preview: r.feature, outcome: r.outcome }
}

export async function repay(ctx: WriteContext, req: RepayRequest) {
  const r = sent(await directRun({ ctx })(repayWrite(req)))
  return { preview: r.feature, outcome: r.outcome }
}

export async function transfer(ctx: WriteContext, req: TransferRequest) {
  const r = sent(await directRun({ ctx })(transferWrite(req)))
  return { outcome: r.outcome, amountAtoms: r.feature.amountAtoms }
}

export async function withdraw(ctx: WriteContext, req: WithdrawRequest) {
  const r = sent(await directRun({ ctx })(withdrawWrite(req)))
  return { outcome: r.outcome, withdrawNonce: ctx.journal.get(r.outcome.journalId)?.businessNonce ?? null, feeAtoms: r.feature.feeAtoms }
}

export async function activateFor(ctx: WriteContext, req: { from: string; target: string; asset: string | number; cloid?: string }) {
  return { outcome: sent(await directRun({ ctx })(activationWrite(req))).outcome }
}

export async function placeOrder(ctx: WriteContext, t: orders.OrderTicket) {
  const r = sent(await directRun({ ctx })(orders.orderWrite(t)))
  return { ticket: r.feature, outcome: r.outcome, leaves: r.leaves }
}

export async function cancelOrder(
  ctx: orders.OrdersContext,
  req: { account: string; market: number | string; oid?: string; cloid?: string },
) {
  const r = sent(await orders.cancelOrder(directRun({ ctx }), req))
  return { outcome: r.outcome, leaves: r.leaves }
}

export async function cancelAllInMarket(ctx: orders.OrdersContext, req: { account: string; market: number | string }) {
  const r = sent(await orders.cancelAllInMarket(ctx, directRun({ ctx }), req))
  return { outcome: r.outcome, leaves: r.leaves }
}

export const emergencyCancelAll = (ctx: orders.OrdersContext, req: { account: string }) =>
  orders.emergencyCancelAll(ctx, directRun({ ctx }), req)
export const approveAgent = (ctx: agents.AgentsContext, req: { owner: string; slot: number }) =>
  agents.approveAgent(ctx, directRun({ ctx }), req)
export const revokeAgent = (ctx: agents.AgentsContext, req: { owner: string; slot: number }) =>
  agents.revokeAgent(ctx, directRun({ ctx }), req)
export const rotateAgent = (ctx: agents.AgentsContext, req: { owner: string; slot: number }) =>
  agents.rotateAgent(ctx, directRun({ ctx }), req)

export async function createEarnWithdrawal(
  earnCtx: EarnServiceContext,
  req: { user: string; asset: string | number; amount: string; type: WithdrawType },
) {
  const r = sent(await directRun({ earnCtx })(earnRequestWrite(req)))
  const s = r.earn!.submission
  return { preview: r.feature, operationId: r.earn!.operationId, journalId: s.id, state: s.state, status: s.finalStatus }
}

async function operation(earnCtx: EarnServiceContext, spec: WriteSpec) {
  const r = sent(await directRun({ earnCtx })(spec))
  const e = r.earn!
  return {
    operationId: e.operationId,
    journalId: e.submission.id,
    state: e.submission.state,
    status: e.record?.status ?? e.submission.finalStatus,
  }
}

export const claimEarnWithdrawal = (earnCtx: EarnServiceContext, req: { user: string; operationId: string }) =>
  operation(earnCtx, earnClaimWrite(req))
export const cancelEarnWithdrawal = (earnCtx: EarnServiceContext, req: { user: string; operationId: string }) =>
  operation(earnCtx, earnCancelWrite(req))
