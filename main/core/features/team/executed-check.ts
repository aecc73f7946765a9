/**
 * Before a proposal's write is signed, the exchange is asked by cloid whether it already executed.
 * The team chain says what the team signed; the exchange says what happened, and it does not
 * deduplicate. A chain whose `signed` and `outcome` rows were deleted (and a desk that lost its
 * kept head) would otherwise sign a second time and pay twice. Found: the exchange's status is
 * recorded as the proposal's outcome and nothing is signed. The exchange cannot be asked: nothing
 * is signed either (the operator retries when it answers), never a guess.
 *
 * /trade writes are read with txStatusByCloid (keyed on the signer, inside its recent window); an
 * earn withdrawal request by its operation id (the pool keeps every record). An earn claim or
 * cancel carries an existing operation id: it executed when the record is claimed or cancelled.
 */
import type { Address } from 'viem'
import { DeskError } from '../../errors/desk-error'
import * as T from '../../exchange/info/types'
import type { SessionSource } from '../../session'
import { TeamErrors } from '../../team'
import type { WriteDecision, WriteIntent } from '../../writes/decision'
import type { GateContext } from './gate-context'
import { block } from './gate-refusals'
import type { ExecutedCheck, ExecutedRead } from './executed-read'

export type { ExecutedCheck, ExecutedRead } from './executed-read'

const SUCCESS = new Set(['ok', 'success', 'committed', 'executed', 'accepted'])
const EARN_KINDS: Record<string, readonly string[]> = {
  earn_request: [], // any record under the operation id: the request executed
  earn_claim: ['claimed'],
  earn_cancel: ['cancelled'],
}

/** The check on the selected network's session (its /info client and earn client). */
export function sessionExecutedCheck(sessions: SessionSource): ExecutedCheck {
  return async (intent) => {
    const session = await sessions.current()
    if (session.name !== intent.network)
      throw new DeskError(
        'TeamExecutionUnknown',
        `this desk is on ${session.name}, the proposal on ${intent.network}: the exchange cannot be asked`,
      )
    const earnStatuses = EARN_KINDS[intent.kind]
    if (earnStatuses) {
      const w = await session.write()
      const rec = await w.earn.withdrawal(intent.account, intent.cloid, 'operator')
      const check = `earn withdrawal(${intent.account}, ${intent.cloid}): ${rec ? `found, status ${rec.status}` : 'not found'}`
      const executed = rec !== null && (earnStatuses.length === 0 || earnStatuses.includes(rec.status))
      return { executed, status: rec?.status ?? null, succeeded: executed, checks: [check] }
    }
    const user = (intent.signer ?? intent.account) as Address
    const r = await session.info.call(T.txStatusByCloid, { user, cloid: intent.cloid }, { lane: 'operator' })
    const status = r.status ?? null
    const check = `txStatusByCloid(${user}, ${intent.cloid}): ${r.found ? `found, status ${status ?? 'null'}` : 'not found'}`
    const executed = r.found && status !== null
    return { executed, status, succeeded: executed && SUCCESS.has(status.toLowerCase()), checks: [check] }
  }
}

/**
 * The approved proposal's write, checked against the exchange before anything is signed: not
 * executed, the decision stands; executed, its outcome goes in the chain and the write is refused.
 */
export async function unlessExecuted(ctx: GateContext, proposalId: string, intent: WriteIntent, d: WriteDecision): Promise<WriteDecision> {
  const check = ctx.o.executed
  if (!check || intent.cloid === '') return d
  let r: ExecutedRead
  try {
    r = await check(intent)
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e)
    return block(
      'TeamExecutionUnknown',
      `proposal ${proposalId.slice(0, 10)}…: the exchange could not be asked whether cloid ${intent.cloid} already executed (${why}); nothing was ` +
        `signed. Try again when the exchange answers`,
    )
  }
  if (!r.executed) return d
  const evidence = JSON.stringify({
    checks: r.checks,
    why: 'the exchange already executed this cloid before this desk signed anything: its status is the outcome; nothing was signed',
  })
  await ctx.append('outcome', () => ({
    proposal: proposalId,
    state: r.succeeded ? 'reconciled' : 'failed',
    finalStatus: r.succeeded ? r.status : 'failed',
    code: r.succeeded ? null : r.status,
    at: ctx.now(),
    evidence,
    onExchange: true,
  }))
  return block(
    TeamErrors.alreadyExecuted,
    `proposal ${proposalId.slice(0, 10)}… already executed on the exchange (${r.checks.join('; ')}): its outcome is recorded in the team chain and ` +
      `nothing was signed`,
  )
}
