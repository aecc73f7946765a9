import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { openJournalFile, type Journal } from '../../journal'
import { classifyTradeAnswer } from './classify'
import { TradeFailedError } from './errors'
import type { HttpAnswer, HttpPoster } from './http-post'
import { localTradeSigner } from './testing/local-signer'
import { TradeSubmitter, type SchedulerLike } from './submitter'

const owner = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const signer = localTradeSigner(() => owner)
const CASH = '0x00000000000000000000000000000000000000c1'
const CL = '0x' + '12'.repeat(16)
const immediate: SchedulerLike = { run: (_l, t) => t(), pauseFor: () => undefined }
const ans = (status: number, body: unknown): HttpAnswer => ({ status, headers: {}, text: JSON.stringify(body) })
const acc = (response: unknown) => ans(200, { submission_status: 'accepted', tx_hash: '0x1', response })

let j: Journal
afterEach(() => j?.closeNow())

function submitter(answers: HttpAnswer[], heightFloor?: () => Promise<bigint | null>) {
  j = openJournalFile(':memory:')
  const bodies: string[] = []
  const post = (async (_u: string, body: string) => {
    bodies.push(body)
    const a = answers.shift()
    if (!a) throw new Error('no answer scripted')
    return a
  }) as unknown as HttpPoster
  let t = 1_700_000_000_000
  const sub = new TradeSubmitter({
    network: 'sandbox',
    tradeUrl: 'http://x/trade',
    chainId: 1,
    journal: j,
    signer,
    scheduler: immediate,
    post,
    now: () => t++,
    sleep: async () => undefined,
    heightFloor,
  })
  return { sub, bodies }
}
const who = { account: owner.address, signer: { owner: owner.address, role: 'owner' as const } }

describe('classification of every /trade answer', () => {
  const order = { type: 'order' }
  it('an unknown leaf or status shape is unknown (then reconciled), never a success', () => {
    expect(classifyTradeAnswer(acc({ type: 'order', status: { resting: { oid: 1 } } }), order)).toMatchObject({
      kind: 'unknown',
      code: 'UnclassifiedAnswer',
    })
    expect(classifyTradeAnswer(acc({ type: 'order', status: { open: { oid: 1 }, extra: 1 } }), order)).toMatchObject({ kind: 'unknown' })
    expect(classifyTradeAnswer(acc({ type: 'order' }), order)).toMatchObject({ kind: 'unknown' })
    expect(classifyTradeAnswer(acc({ type: 'order', status: { open: { oid: 'x1' } } }), order)).toMatchObject({ kind: 'unknown' })
    expect(
      classifyTradeAnswer(acc({ type: 'batch', statuses: [{ type: 'order', status: { open: { oid: 1 } } }] }), {
        type: 'batch',
        items: [order, order],
      }),
    ).toMatchObject({ kind: 'unknown' })
    expect(classifyTradeAnswer(acc({ type: 'default', status: { open: { oid: 1 } } }), { type: 'settle' })).toMatchObject({
      kind: 'unknown',
    })
    expect(classifyTradeAnswer(acc(undefined), order)).toMatchObject({ kind: 'unknown' })
    // Without the action, an unknown leaf is unknown too.
    expect(classifyTradeAnswer(acc({ type: 'order', status: { weird: 1 } }))).toMatchObject({ kind: 'unknown', code: 'UnclassifiedAnswer' })
  })

  it('an execution failure is `failed` with code and advice; benign closes and mixed batches are accepted', () => {
    expect(classifyTradeAnswer(acc({ type: 'default', status: { error: 'invalidsettle' } }), { type: 'settle' })).toMatchObject({
      kind: 'failed',
      code: 'invalidsettle',
      advice: expect.stringMatching(/over-settle/),
    })
    expect(classifyTradeAnswer(acc({ type: 'default' }), { type: 'settle' })).toMatchObject({ kind: 'accepted', leaves: [] })
    // A cancel of an order that filled meanwhile did nothing.
    expect(classifyTradeAnswer(acc({ type: 'cancel', status: { error: 'missingorder' } }), { type: 'cancel' })).toMatchObject({
      kind: 'failed',
      code: 'missingorder',
      advice: expect.stringMatching(/no longer open/),
    })
    expect(classifyTradeAnswer(acc({ type: 'order', status: { error: 'tick' } }), order)).toMatchObject({ kind: 'failed', code: 'tick' })
    expect(classifyTradeAnswer(acc({ type: 'order', status: { error: 'fokcancel' } }), order)).toMatchObject({ kind: 'accepted' })
    expect(classifyTradeAnswer(acc({ type: 'cancelAll', statuses: [{ error: 'marketnotfound' }] }), { type: 'cancelAll' })).toMatchObject({
      kind: 'failed',
      code: 'marketnotfound',
    })
    const mixed = acc({
      type: 'batch',
      statuses: [
        { type: 'order', status: { error: 'tick' } },
        { type: 'order', status: { open: { oid: 2, cloid: null } } },
      ],
    })
    expect(classifyTradeAnswer(mixed, { type: 'batch', items: [order, order] })).toMatchObject({ kind: 'accepted' })
    const allBad = acc({
      type: 'batch',
      statuses: [
        { type: 'order', status: { error: 'tick' } },
        { type: 'cancel', status: { error: 'missingorder' } },
      ],
    })
    expect(classifyTradeAnswer(allBad, { type: 'batch', items: [order, { type: 'cancel' }] })).toMatchObject({
      kind: 'failed',
      code: 'tick',
    })
  })

  it('FeatureDisabled and InvalidBatchLength are rejections (never executed)', () => {
    expect(
      classifyTradeAnswer(ans(200, { submission_status: 'rejected', tx_hash: '0x2', error: { code: 'FeatureDisabled' } })),
    ).toMatchObject({ kind: 'rejected', code: 'FeatureDisabled' })
    expect(classifyTradeAnswer(ans(200, { submission_status: 'rejected', error: { code: 'InvalidBatchLength' } }))).toMatchObject({
      kind: 'rejected',
      code: 'InvalidBatchLength',
    })
  })

  it('fokcancel advice says it may have traded', async () => {
    const { adviceForCode } = await import('../../../contract/advice')
    expect(adviceForCode('fokcancel')).toMatch(/may still have traded/)
  })
})

describe('submitter outcomes', () => {
  it('a write that fails at execution is journaled failed and thrown as TradeFailed, not shown as accepted', async () => {
    const { sub } = submitter([acc({ type: 'default', status: { error: 'invalidsettle' } })])
    const err = await sub
      .submit({ ...who, action: { type: 'settle', asset_id: '1', amount: '1', cash_account: CASH, cloid: CL } as never, summary: 's' })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TradeFailedError)
    expect(err).toMatchObject({ code: 'TradeFailed', failCode: 'invalidsettle' })
    expect(j.list()[0]).toMatchObject({ state: 'failed', code: 'invalidsettle', advice: expect.stringMatching(/over-settle/) })
  })

  it('an accepted answer with an unknown leaf is journaled unknown (for the reconciler)', async () => {
    const { sub } = submitter([acc({ type: 'order', status: { parked: { oid: 1 } } })])
    await expect(
      sub.submit({
        ...who,
        action: { type: 'order', market_id: '1', side: 'bid', order_type: 'limit', tif: 'gtc', price: '1', quantity: '1' } as never,
        summary: 'o',
      }),
    ).rejects.toMatchObject({ code: 'TradeOutcomeUnknown' })
    expect(j.list()[0]).toMatchObject({ state: 'unknown', code: 'UnclassifiedAnswer' })
  })

  it('journals the height floor read before sending', async () => {
    const { sub } = submitter([acc({ type: 'default' })], async () => 4242n)
    const r = await sub.submit({
      ...who,
      action: { type: 'settle', asset_id: '1', amount: '1', cash_account: CASH } as never,
      summary: 's',
    })
    expect(r.submission.submitHeight).toBe('4242')
  })

  it('refuses a cloid the journal holds as executed, or unresolved until acknowledged', async () => {
    const { sub, bodies } = submitter([acc({ type: 'default' }), acc({ type: 'default' })])
    const action = { type: 'settle', asset_id: '1', amount: '1', cash_account: CASH, cloid: CL } as never
    await sub.submit({ ...who, action, summary: 's' })
    // Retrying with the same cloid would execute a second time.
    await expect(sub.submit({ ...who, action, summary: 's' })).rejects.toMatchObject({ code: 'CloidAlreadyUsed' })
    const c2 = '0x' + '34'.repeat(16)
    const e = j.record({
      channel: 'trade',
      key: c2,
      network: 'sandbox',
      account: owner.address,
      signer: owner.address,
      actionType: 'settle',
      summary: 'lost',
      nonce: null,
      body: '{}',
    })
    j.update(e.id, { state: 'sent' })
    j.update(e.id, { state: 'unresolved', advice: 'check' })
    const again = { type: 'settle', asset_id: '1', amount: '1', cash_account: CASH, cloid: c2 } as never
    await expect(sub.submit({ ...who, action: again, summary: 's' })).rejects.toMatchObject({ code: 'CloidUnresolved' })
    expect(bodies).toHaveLength(1)
    j.acknowledgeUnresolved(e.id, 'balances unchanged: it did not execute')
    await sub.submit({ ...who, action: again, summary: 's' })
    expect(bodies).toHaveLength(2)
  })
})
