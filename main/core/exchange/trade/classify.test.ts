import { describe, expect, it } from 'vitest'
import { classifyTradeAnswer } from './classify'

const ans = (status: number, body: unknown) => ({ status, headers: {}, text: typeof body === 'string' ? body : JSON.stringify(body) })

describe('classifyTradeAnswer', () => {
  it('reads every leaf of an accepted batch, including per-order failures', () => {
    const o = classifyTradeAnswer(
      ans(200, {
        submission_status: 'accepted',
        tx_hash: '0xab',
        response: {
          type: 'batch',
          statuses: [
            { type: 'order', status: { open: { oid: 7, cloid: '0x' + '1'.repeat(32) } } },
            { type: 'order', status: { error: 'tick' } },
            { type: 'cancelAll', statuses: [{ cancelled: { oid: 3, cloid: null } }, { cancelled: { oid: 4, cloid: null } }] },
          ],
        },
      }),
    )
    expect(o.kind).toBe('accepted')
    if (o.kind !== 'accepted') return
    expect(o.leaves).toEqual([
      { item: 0, kind: 'open', oid: '7', cloid: '0x' + '1'.repeat(32) },
      { item: 1, kind: 'error', code: 'tick' },
      { item: 2, kind: 'cancelled', oid: '3', cloid: null },
      { item: 2, kind: 'cancelled', oid: '4', cloid: null },
    ])
  })

  it('an accepted empty cancelAll is a success with no leaves', () => {
    const o = classifyTradeAnswer(
      ans(200, { submission_status: 'accepted', tx_hash: '0x1', response: { type: 'cancelAll', statuses: [] } }),
    )
    expect(o).toMatchObject({ kind: 'accepted', leaves: [] })
  })

  it('maps the timeout table: wait budget and 504 are unknown, 503 Unavailable resends the same bytes', () => {
    expect(classifyTradeAnswer(ans(200, { submission_status: 'timeout', tx_hash: '0x1' }))).toMatchObject({
      kind: 'unknown',
      code: 'WaitBudgetTimeout',
      txHash: '0x1',
    })
    expect(classifyTradeAnswer(ans(504, { submission_status: 'timeout', error: { code: 'NodeUnreachable' } }))).toMatchObject({
      kind: 'unknown',
      code: 'NodeUnreachable',
    })
    expect(classifyTradeAnswer(ans(503, { submission_status: 'timeout', error: { code: 'Unavailable', retry_after_ms: 200 } }))).toEqual({
      kind: 'resendSame',
      code: 'Unavailable',
      delayMs: 200,
    })
  })

  it('throttling codes are never executed and carry their delay', () => {
    expect(classifyTradeAnswer(ans(429, { submission_status: 'rejected', error: { code: 'RateLimited', retry_after_ms: 750 } }))).toEqual({
      kind: 'backoff',
      code: 'RateLimited',
      delayMs: 750,
    })
    expect(classifyTradeAnswer(ans(503, { submission_status: 'rejected', error: { code: 'TooManyPending', retry_after_ms: 50 } }))).toEqual(
      { kind: 'backoff', code: 'TooManyPending', delayMs: 50 },
    )
    expect(classifyTradeAnswer(ans(503, { submission_status: 'rejected', error: { code: 'PlaceOrderSuspended' } }))).toMatchObject({
      kind: 'backoff',
      code: 'PlaceOrderSuspended',
    })
    // A hostile delay is bounded.
    expect(
      classifyTradeAnswer(ans(429, { submission_status: 'rejected', error: { code: 'RateLimited', retry_after_ms: 1e12 } })),
    ).toMatchObject({ delayMs: 60_000 })
  })

  it('rejections keep their code and tx hash', () => {
    expect(classifyTradeAnswer(ans(200, { submission_status: 'rejected', tx_hash: '0x9', error: { code: 'BadNonce' } }))).toMatchObject({
      kind: 'rejected',
      code: 'BadNonce',
      txHash: '0x9',
    })
    expect(classifyTradeAnswer(ans(400, { submission_status: 'rejected', error: { code: 'InvalidQuantityPrecision' } }))).toMatchObject({
      kind: 'rejected',
      code: 'InvalidQuantityPrecision',
      txHash: null,
    })
  })

  it('an answer that is not a trade response is classified by HTTP status, never as success', () => {
    expect(classifyTradeAnswer(ans(413, 'Payload Too Large'))).toMatchObject({ kind: 'rejected', code: 'RequestTooLarge' })
    expect(classifyTradeAnswer(ans(502, '<html>bad gateway</html>'))).toMatchObject({ kind: 'unknown', code: 'UnreadableAnswer' })
    expect(classifyTradeAnswer(ans(200, '{"submission_status":"accepted"'))).toMatchObject({ kind: 'unknown' })
    expect(classifyTradeAnswer(ans(200, { submission_status: 'weird' }))).toMatchObject({ kind: 'unknown' })
  })
})
