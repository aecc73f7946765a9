import { DeskError } from '../errors/desk-error'
import { guardOrder, guardTransfer, guardWithdraw, guardWrite, policyEngine, type PolicyAccess } from '../policy'
import type { WriteContext } from '../session'
import type { WriteKind } from './decision'
import type { GuardInputs } from './write-spec'

/**
 * The desk's own guardrails per write kind, stated once: the pipeline runs the ones named here
 * for every host, before the decision step. The halt comes first, before the vault and before
 * any of the feature's validation or reads: a halted desk answers WritesHalted to every well-formed
 * intent of a halted kind, whatever else is wrong with it (the operator must hear the one thing no
 * correction will get round). `request` rules then run on the request before the feature's
 * validation (a refused destination, a limit); `validated` rules need the validated write (an
 * order's value and price band). Cancels, revokes and the earn cancel only reduce exposure or
 * access, so they stay open while halted (a halt must still be able to clear the book).
 */
interface Guardrail {
  /** How the halt's refusal names the write; absent: the kind stays open while halted. */
  halt?: string
  /** The kind's rule on the request (it states the halt among its own checks). */
  request?: 'transfer' | 'withdraw'
  /** The kind's rule on the validated write (it states the halt among its own checks). */
  validated?: 'order'
}

export const GUARDRAILS: Record<WriteKind, Guardrail> = {
  settle: { halt: 'the settle' },
  repay: { halt: 'the repay' },
  transfer: { halt: 'the transfer', request: 'transfer' },
  withdraw: { halt: 'the withdrawal', request: 'withdraw' },
  activation: { halt: 'the account activation' },
  agent_approve: { halt: 'the API key approval' },
  agent_revoke: {},
  agent_rotate: { halt: 'the API key rotation' },
  earn_request: { halt: 'the earn withdrawal request' },
  earn_claim: { halt: 'the earn claim' },
  earn_cancel: {},
  order: { halt: 'the order', validated: 'order' },
  cancel: {},
  // Halt and resume are the desk's own switches, not exchange writes: they never enter the pipeline.
  halt: {},
  resume: {},
}

const missing = (kind: WriteKind, rule: string) =>
  new DeskError('Internal', `the ${kind} write did not name its ${rule} guardrail's inputs`)

/**
 * Refuses (WritesHalted) a write of a halted kind while the desk is halted; records nothing (the
 * confirmation's list of passed checks comes from `guardRequest`/`guardValidated`). The pipeline's
 * first step, and what a preview, a check or an operation made of several writes asks before its
 * own validation or reads.
 */
export async function refuseIfHalted(d: PolicyAccess, kind: WriteKind): Promise<void> {
  const what = GUARDRAILS[kind].halt
  if (what !== undefined) (await policyEngine(d)).engine.requireWritable(what)
}

/** The kind's guardrail on the request; returns the USD value it checked the write at, when it values one. */
export async function guardRequest(
  d: PolicyAccess,
  kind: WriteKind,
  ctx: WriteContext,
  inputs: GuardInputs | undefined,
): Promise<bigint | null> {
  const g = GUARDRAILS[kind]
  switch (g.request) {
    case 'transfer':
      if (!inputs?.transfer) throw missing(kind, g.request)
      return guardTransfer(d, ctx, inputs.transfer)
    case 'withdraw':
      if (!inputs?.withdraw) throw missing(kind, g.request)
      return guardWithdraw(d, ctx, inputs.withdraw)
    case undefined:
      // A kind with no rule of its own (and none on the validated write) states the halt check here.
      if (g.halt !== undefined && g.validated === undefined) await guardWrite(d, g.halt)
      return null
  }
}

/** The kind's guardrail on the validated write (an order's value and band); returns the USD value it checked. */
export async function guardValidated(d: PolicyAccess, kind: WriteKind, inputs: GuardInputs | undefined): Promise<bigint | null> {
  const g = GUARDRAILS[kind].validated
  if (!g) return null
  if (!inputs?.order) throw missing(kind, g)
  return guardOrder(d, inputs.order.order, inputs.order.override)
}
