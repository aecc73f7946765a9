import { DeskError } from '../errors/desk-error'
import { guardOrder, guardTransfer, guardWithdraw, guardWrite, type PolicyAccess } from '../policy'
import type { WriteContext } from '../session'
import type { WriteKind } from './decision'
import type { GuardInputs } from './write-spec'

/**
 * The desk's own guardrails per write kind, stated once: the pipeline runs the ones named here
 * for every host, before the decision step. `request` rules run on the request before the
 * feature's validation (a halt or a refused destination is the first thing the operator hears);
 * `validated` rules need the validated write (an order's value and price band). Cancels, revokes
 * and the earn cancel only reduce exposure or access, so they stay open while halted (a halt must
 * still be able to clear the book).
 */
interface Guardrail {
  request?: { rule: 'halt'; what: string } | { rule: 'transfer' } | { rule: 'withdraw' }
  validated?: { rule: 'order' }
}

export const GUARDRAILS: Record<WriteKind, Guardrail> = {
  settle: { request: { rule: 'halt', what: 'the settle' } },
  repay: { request: { rule: 'halt', what: 'the repay' } },
  transfer: { request: { rule: 'transfer' } },
  withdraw: { request: { rule: 'withdraw' } },
  activation: { request: { rule: 'halt', what: 'the account activation' } },
  agent_approve: { request: { rule: 'halt', what: 'the API key approval' } },
  agent_revoke: {},
  agent_rotate: { request: { rule: 'halt', what: 'the API key rotation' } },
  earn_request: { request: { rule: 'halt', what: 'the earn withdrawal request' } },
  earn_claim: { request: { rule: 'halt', what: 'the earn claim' } },
  earn_cancel: {},
  order: { request: { rule: 'halt', what: 'the order' }, validated: { rule: 'order' } },
  cancel: {},
  // Halt and resume are the desk's own switches, not exchange writes: they never enter the pipeline.
  halt: {},
  resume: {},
}

const missing = (kind: WriteKind, rule: string) =>
  new DeskError('Internal', `the ${kind} write did not name its ${rule} guardrail's inputs`)

/** The kind's guardrail on the request; returns the USD value it checked the write at, when it values one. */
export async function guardRequest(
  d: PolicyAccess,
  kind: WriteKind,
  ctx: WriteContext,
  inputs: GuardInputs | undefined,
): Promise<bigint | null> {
  const g = GUARDRAILS[kind].request
  if (!g) return null
  switch (g.rule) {
    case 'halt':
      await guardWrite(d, g.what)
      return null
    case 'transfer':
      if (!inputs?.transfer) throw missing(kind, g.rule)
      return guardTransfer(d, ctx, inputs.transfer)
    case 'withdraw':
      if (!inputs?.withdraw) throw missing(kind, g.rule)
      return guardWithdraw(d, ctx, inputs.withdraw)
  }
}

/** The kind's guardrail on the validated write (an order's value and band); returns the USD value it checked. */
export async function guardValidated(d: PolicyAccess, kind: WriteKind, inputs: GuardInputs | undefined): Promise<bigint | null> {
  const g = GUARDRAILS[kind].validated
  if (!g) return null
  if (!inputs?.order) throw missing(kind, g.rule)
  return guardOrder(d, inputs.order.order, inputs.order.override)
}
