import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { openJournalFile, type Journal } from '../../journal'
import { recoverAuthority, type TradeEnvelope } from '../../wire'
import type { HttpAnswer, HttpPoster } from './http-post'
import { TransportFailure } from './http-post'
import { localTradeSigner } from './testing/local-signer'
import { TradeSubmitter, type SchedulerLike } from './submitter'

const CHAIN = 424242
const owner = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const agent = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a')
const signer = localTradeSigner((ref) => (ref.role === 'owner' ? owner : agent))
const CASH = '0x00000000000000000000000000000000000000c1'

const immediate: SchedulerLike & { paused: number[] } = {
  paused: [],
  run: (_lane, task) => task(),
  pauseFor(ms) {
    this.paused.push(ms)
  },
}

let j: Journal
afterEach(() => j?.closeNow())

function answer(status: number, body: unknown, trace = 'tr'): HttpAnswer {
  return { status, headers: { 'x-trace-id': trace }, text: JSON.stringify(body) }
}

function scripted(steps: ((body: string) => HttpAnswer | Error)[]): HttpPoster & { bodies: string[] } {
  const bodies: string[] = []
  const fn = (async (_url: string, body: string) => {
    bodies.push(body)
    const step = steps.shift()
    if (!step) throw new Error('no more scripted answers')
    const r = step(body)
    if (r instanceof Error) throw r
    return r
  }) as unknown as HttpPoster & { bodies: string[] }
  fn.bodies = bodies
  return fn
}

function submitter(post: HttpPoster, over: Partial<ConstructorParameters<typeof TradeSubmitter>[0]> = {}) {
  let t = 1_700_000_000_000
  j = openJournalFile(':memory:')
  return new TradeSubmitter({
    network: 'sandbox',
    tradeUrl: 'http://127.0.0.1:1/trade',
    chainId: CHAIN,
    journal: j,
    signer,
    scheduler: immediate,
    post,
    now: () => t++,
    sleep: async () => undefined,
    ...over,
  })
}

const settle = { type: 'settle' as const, asset_id: '1', amount: '100000000', cash_account: CASH }

describe('TradeSubmitter', () => {
  it('journals the exact signed body with a cloid and nonce before sending, then records acceptance', async () => {
    const post = scripted([
      (body) => {
        // At send time the entry is already on disk, marked sent, with these very bytes.
        const s = j.list()[0]!
        expect(s.state).toBe('sent')
        expect(s.body).toBe(body)
        return answer(200, { submission_status: 'accepted', tx_hash: '0xaa', response: { type: 'default' } })
      },
    ])
    const sub = submitter(post)
    const r = await sub.submit({
      account: owner.address,
      signer: { owner: owner.address, role: 'owner' },
      action: settle as never,
      summary: 'settle 1',
    })
    expect(r.submission).toMatchObject({ state: 'accepted', txHash: '0xaa', traceId: 'tr', attempts: 1, actionType: 'settle' })
    const env = JSON.parse(post.bodies[0]!) as TradeEnvelope
    expect(env.action.type).toBe('settle')
    expect((env.action as { cloid: string }).cloid).toMatch(/^0x[0-9a-f]{32}$/)
    expect(r.key).toBe((env.action as { cloid: string }).cloid)
    expect(env.auth_scheme).toBe('eip712')
    expect(env.expires_after_ms).toBeDefined()
    expect((await recoverAuthority(env, CHAIN)).toLowerCase()).toBe(owner.address.toLowerCase())
    expect(j.history(r.submission.id).map((e) => e.state)).toEqual(['signed', 'sent', 'accepted'])
  })

  it("tells the /trade budget when the bytes are on the socket (it counts the service's token from there), after the sent mark is on disk", async () => {
    const seen: string[] = []
    const scheduler: SchedulerLike = {
      run: (_lane, task) => task({ onSocket: () => seen.push(`on socket, entry ${j.list()[0]!.state}`) }),
      pauseFor: () => undefined,
    }
    const post: HttpPoster = async (_url, _body, opts) => {
      seen.push('posting')
      opts.onWritten?.()
      seen.push('answered')
      return answer(200, { submission_status: 'accepted', tx_hash: '0xab', response: { type: 'default' } })
    }
    const sub = submitter(post, { scheduler })
    await sub.submit({
      account: owner.address,
      signer: { owner: owner.address, role: 'owner' },
      action: settle as never,
      summary: 'settle',
    })
    expect(seen).toEqual(['posting', 'on socket, entry sent', 'answered'])
  })

  it('agent-signed orders carry agent_epoch, keep the operator cloid, and fresh nonces are strictly increasing', async () => {
    const ok = () =>
      answer(200, { submission_status: 'accepted', tx_hash: '0x1', response: { type: 'order', status: { open: { oid: 5, cloid: null } } } })
    const post = scripted([ok, ok])
    const sub = submitter(post, { now: () => 1_700_000_000_000 })
    const cloid = '0x' + 'AB'.repeat(16)
    const order = {
      type: 'order' as const,
      market_id: '1',
      side: 'bid' as const,
      order_type: 'limit' as const,
      tif: 'gtc' as const,
      price: '10',
      quantity: '1',
      cloid,
    }
    const ref = { owner: owner.address, role: 'agent' as const, slot: 0 as const }
    const r1 = await sub.submit({ account: owner.address, signer: ref, agentEpoch: 3n, action: order, summary: 'buy' })
    await expect(
      sub.submit({ account: owner.address, signer: ref, action: { ...order, cloid: undefined }, summary: 'buy' }),
    ).rejects.toMatchObject({ code: 'AgentEpochRequired' })
    const r2 = await sub.submit({
      account: owner.address,
      signer: ref,
      agentEpoch: 3n,
      action: { ...order, cloid: undefined },
      summary: 'buy',
    })
    const e1 = JSON.parse(post.bodies[0]!) as TradeEnvelope
    const e2 = JSON.parse(post.bodies[1]!) as TradeEnvelope
    expect(e1.agent_epoch).toBe('3')
    expect(r1.key).toBe(cloid.toLowerCase())
    expect(BigInt(e2.nonce) > BigInt(e1.nonce)).toBe(true)
    expect(r1.submission.signer).toBe(agent.address.toLowerCase())
    expect(r1.submission.account).toBe(owner.address.toLowerCase())
    expect(r2.leaves).toEqual([{ item: 0, kind: 'open', oid: '5', cloid: null }])
    expect((await recoverAuthority(e1, CHAIN)).toLowerCase()).toBe(agent.address.toLowerCase())
  })

  it('resends the same signed bytes after Unavailable, TooManyPending and RateLimited (honouring the delay)', async () => {
    immediate.paused = []
    const post = scripted([
      () => answer(503, { submission_status: 'timeout', error: { code: 'Unavailable', retry_after_ms: 100 } }),
      () => answer(503, { submission_status: 'rejected', error: { code: 'TooManyPending', retry_after_ms: 50 } }),
      () => answer(429, { submission_status: 'rejected', error: { code: 'RateLimited', retry_after_ms: 700 } }),
      () => new TransportFailure('beforeWrite', 'connect', 'ECONNREFUSED'),
      () => answer(200, { submission_status: 'accepted', tx_hash: '0x2', response: { type: 'default' } }),
    ])
    const sub = submitter(post)
    const r = await sub.submit({
      account: owner.address,
      signer: { owner: owner.address, role: 'owner' },
      action: settle as never,
      summary: 's',
    })
    expect(new Set(post.bodies).size).toBe(1)
    expect(post.bodies).toHaveLength(5)
    expect(r.submission.attempts).toBe(5)
    expect(immediate.paused).toEqual([700])
    expect(j.count()).toBe(1)
  })

  it('the wait-budget timeout and 504 leave the entry unknown and throw TradeOutcomeUnknown, never resending', async () => {
    for (const a of [
      answer(200, { submission_status: 'timeout', tx_hash: '0x3' }),
      answer(504, { submission_status: 'timeout', error: { code: 'NodeUnreachable' } }),
    ]) {
      const unknown: number[] = []
      const post = scripted([() => a])
      const sub = submitter(post, { onUnknown: (s) => unknown.push(s.id) })
      await expect(
        sub.submit({ account: owner.address, signer: { owner: owner.address, role: 'owner' }, action: settle as never, summary: 's' }),
      ).rejects.toMatchObject({
        code: 'TradeOutcomeUnknown',
      })
      expect(post.bodies).toHaveLength(1)
      expect(j.list()[0]).toMatchObject({ state: 'unknown' })
      expect(unknown).toEqual([j.list()[0]!.id])
      j.closeNow()
    }
  })

  it('a connection lost after the request was written is unknown; one lost before is never sent', async () => {
    const lost = scripted([() => new TransportFailure('afterWrite', 'reset', 'socket hang up')])
    const sub = submitter(lost)
    await expect(
      sub.submit({ account: owner.address, signer: { owner: owner.address, role: 'owner' }, action: settle as never, summary: 's' }),
    ).rejects.toMatchObject({
      code: 'TradeOutcomeUnknown',
      details: expect.objectContaining({ reason: 'reset' }),
    })
    j.closeNow()
    const refused = scripted(Array.from({ length: 3 }, () => () => new TransportFailure('beforeWrite', 'connect', 'ECONNREFUSED')))
    const sub2 = submitter(refused, { maxAttempts: 3 })
    await expect(
      sub2.submit({ account: owner.address, signer: { owner: owner.address, role: 'owner' }, action: settle as never, summary: 's' }),
    ).rejects.toMatchObject({
      code: 'TradeNeverSent',
    })
    expect(j.list()[0]).toMatchObject({ state: 'rejected', finalStatus: 'notexecuted', code: 'NotSent', attempts: 3 })
  })

  it('a rejection is final with its code and throws TradeRejected', async () => {
    const post = scripted([() => answer(200, { submission_status: 'rejected', tx_hash: '0x4', error: { code: 'InvalidSettle' } })])
    const sub = submitter(post)
    await expect(
      sub.submit({ account: owner.address, signer: { owner: owner.address, role: 'owner' }, action: settle as never, summary: 's' }),
    ).rejects.toMatchObject({
      code: 'TradeRejected',
      details: expect.objectContaining({ rejectCode: 'InvalidSettle' }),
    })
    expect(j.list()[0]).toMatchObject({ state: 'rejected', code: 'InvalidSettle', txHash: '0x4' })
  })

  it('PlaceOrderSuspended that persists ends as a rejection without execution', async () => {
    const post = scripted(
      Array.from(
        { length: 2 },
        () => () => answer(503, { submission_status: 'rejected', error: { code: 'PlaceOrderSuspended', retry_after_ms: 10 } }),
      ),
    )
    const sub = submitter(post, { maxAttempts: 2 })
    const order = {
      type: 'order' as const,
      market_id: '1',
      side: 'bid' as const,
      order_type: 'limit' as const,
      tif: 'gtc' as const,
      price: '10',
      quantity: '1',
    }
    await expect(
      sub.submit({ account: owner.address, signer: { owner: owner.address, role: 'owner' }, action: order, summary: 'b' }),
    ).rejects.toMatchObject({
      code: 'TradeRejected',
      details: expect.objectContaining({ rejectCode: 'PlaceOrderSuspended' }),
    })
    expect(j.list()[0]).toMatchObject({ state: 'rejected', finalStatus: 'notexecuted' })
  })

  it('refuses a cloid whose earlier write is still unresolved', async () => {
    const post = scripted([() => answer(200, { submission_status: 'timeout' })])
    const sub = submitter(post)
    const cloid = '0x' + 'cd'.repeat(16)
    await expect(
      sub.submit({ account: owner.address, signer: { owner: owner.address, role: 'owner' }, action: { ...settle, cloid }, summary: 's' }),
    ).rejects.toMatchObject({
      code: 'TradeOutcomeUnknown',
    })
    await expect(
      sub.submit({ account: owner.address, signer: { owner: owner.address, role: 'owner' }, action: { ...settle, cloid }, summary: 's' }),
    ).rejects.toMatchObject({
      code: 'CloidInFlight',
    })
  })

  it('allocates and persists a withdraw business nonce with the envelope nonce', async () => {
    const post = scripted([() => answer(200, { submission_status: 'accepted', tx_hash: '0x5', response: { type: 'default' } })])
    const sub = submitter(post, { now: () => 1_700_000_000_000 })
    const w = { type: 'withdraw' as const, asset_id: '1', amount: '500000000', dst_chain_id: '1', dst_address: CASH, withdraw_nonce: '0' }
    const r = await sub.submit({
      account: owner.address,
      signer: { owner: owner.address, role: 'owner' },
      action: w as never,
      summary: 'w',
      allocateWithdrawNonce: true,
    })
    const env = JSON.parse(post.bodies[0]!) as { action: { withdraw_nonce: string } }
    expect(env.action.withdraw_nonce).toBe('1700000000000')
    expect(r.submission.businessNonce).toBe('1700000000000')
    expect(j.lastNonce('sandbox', owner.address, 'withdraw')).toBe(1700000000000n)
  })

  it('refuses a client timeout that does not exceed 10 s', () => {
    expect(() => submitter(scripted([]), { clientTimeoutMs: 5000 })).toThrowError(expect.objectContaining({ code: 'InvalidConfig' }))
  })
})
