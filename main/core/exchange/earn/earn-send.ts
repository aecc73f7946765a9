import { adviceForCode as adviceFor } from '../../../contract/advice'
import { DeskError } from '../../errors/desk-error'
import type { Journal, Submission } from '../../journal'
import type { Lane } from '../scheduler'
import { TransportFailure } from '../trade/http-post'
import { backoff, type EarnHttp } from './earn-http'
import { deadlineOf, payoutAdvice, type EarnWriteResult, type WriteType } from './earn-outcome'

/** What the send loop uses of the earn client. */
export interface EarnWriteSender {
  readonly http: EarnHttp
  readonly journal: Journal
  /** Journal ids being sent right now (reconciliation leaves them alone). */
  readonly inFlight: Set<number>
  readonly maxAttempts: number
  readonly onUnknown?: (s: Submission) => void
  observe(entry: Submission, lane?: Lane): Promise<EarnWriteResult | null>
}

/** Sends a journaled earn write (or resends its exact bytes) until a final answer. */
export async function sendEarnWrite(c: EarnWriteSender, entry: Submission): Promise<EarnWriteResult> {
  const j = c.journal
  const release = j.hold()
  const type = entry.actionType as WriteType
  c.inFlight.add(entry.id)
  try {
    let lastCode = 'NotSent'
    for (let attempt = 1; attempt <= c.maxAttempts; attempt++) {
      if (attempt > 1 || entry.state !== 'signed') {
        // The write may have executed while its answer was lost: look before resending. A
        // failed read-back does not stop anything: resending the same bytes is safe.
        const done = await c.observe(entry, 'operator').catch(() => null)
        if (done) return done
      }
      if (deadlineOf(entry) <= c.http.now() + 1000) break
      let a
      try {
        j.update(entry.id, { state: 'sent', attempt: true, note: attempt > 1 ? `attempt ${attempt}, same signed bytes` : null })
        a = await c.http.once(type, entry.body, 'operator')
      } catch (e) {
        if (e instanceof TransportFailure) {
          lastCode = e.phase === 'beforeWrite' ? 'NotSent' : 'ConnectionLost'
          await c.http.sleep(backoff(attempt))
          continue
        }
        throw e
      }
      if (a.kind === 'ok') {
        const s = j.update(entry.id, {
          state: 'accepted',
          finalStatus: a.data.status,
          traceId: a.traceId,
          response: a.text,
          advice: payoutAdvice(a.data),
        })
        return { submission: s, operationId: entry.key, record: a.data }
      }
      if (a.kind === 'invalid') {
        if (attempt > 1 || entry.attempts > 1) {
          // A refusal after a lost answer may just say "already done": check once more. When
          // that read fails, the refusal proves nothing: leave it unknown for reconciliation.
          let done: EarnWriteResult | null
          try {
            done = await c.observe(entry, 'operator')
          } catch {
            const s = j.update(entry.id, {
              state: 'unknown',
              code: '131004',
              traceId: a.traceId,
              response: a.text,
              note: `${a.message}; read-back failed, reconciling`,
            })
            throw new DeskError(
              'EarnOutcomeUnknown',
              `the ${type} was refused after an earlier attempt was lost (${a.message}) and the withdrawal could not be read back; it will be ` +
                `reconciled by operation id`,
              { journalId: s.id, operationId: entry.key },
            )
          }
          if (done) return done
        }
        const deadlineGone = /deadline.*future/i.test(a.message)
        const code = deadlineGone ? 'EarnDeadlinePassed' : '131004'
        const s = j.update(entry.id, {
          state: 'rejected',
          finalStatus: 'rejected',
          code,
          advice: adviceFor(code),
          traceId: a.traceId,
          response: a.text,
          note: a.message,
        })
        throw new DeskError('EarnRejected', `the earn pool refused the ${type}: ${a.message}`, {
          journalId: s.id,
          operationId: entry.key,
          poolMessage: a.message,
        })
      }
      if (a.kind === 'rateLimited') {
        lastCode = '201005'
        j.update(entry.id, { state: 'sent', code: '201005', note: 'rate limited; resending at the next second' })
        await c.http.sleep(c.http.untilNextSecond())
        continue
      }
      lastCode = String(a.code)
      j.update(entry.id, { state: 'sent', code: lastCode, traceId: a.traceId, note: `${a.code} ${a.message}; retrying the same bytes` })
      await c.http.sleep(backoff(attempt))
    }
    const done = await c.observe(entry, 'operator').catch(() => null)
    if (done) return done
    const s = j.update(entry.id, {
      state: 'unknown',
      code: lastCode,
      note: 'no final answer; the reconciler will read the operation back',
    })
    c.onUnknown?.(s)
    throw new DeskError(
      'EarnOutcomeUnknown',
      `the ${type} got no final answer (${lastCode}); it is journaled and will be reconciled by operation id`,
      { journalId: s.id, operationId: entry.key },
    )
  } finally {
    c.inFlight.delete(entry.id)
    release()
  }
}
