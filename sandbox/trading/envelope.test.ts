import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHAIN_IDS } from '../../main/core/wire/chains'
import type { TradeAction } from '../../main/core/wire/actions'
import { addr, cloid, fund, info, makeService, nextNonce, send, sign, trade } from '../testing/test-kit'
import { createTradingService } from './service'

const svc = makeService()
afterAll(() => svc.stop())

const cancelAll1: TradeAction = { type: 'cancelAll', market_id: '1' }
const ask = (price = '65000', quantity = '0.5', extra: Partial<Record<string, string>> = {}): TradeAction =>
  ({ type: 'order', market_id: '1', side: 'ask', order_type: 'limit', tif: 'gtc', price, quantity, ...extra }) as TradeAction

beforeAll(() => {
  fund(svc, 'alice')
  fund(svc, 'bob')
})

describe('/trade envelope strictness', () => {
  it('refuses an unknown envelope field with InvalidJson and no tx_hash (400)', async () => {
    const env = { ...(await sign('alice', cancelAll1)), owner: addr('alice') }
    const r = await send(svc, env as never)
    expect(r.status).toBe(400)
    expect(r.body).toEqual({ submission_status: 'rejected', error: { code: 'InvalidJson' } })
  })

  it('refuses malformed JSON and a non-object body with InvalidJson', async () => {
    expect((await send(svc, '{"action":')).body.error?.code).toBe('InvalidJson')
    expect((await send(svc, '[1,2]')).body.error?.code).toBe('InvalidJson')
  })

  it('needs exactly one of signature and signatures (AmbiguousAuthFields)', async () => {
    const env = await sign('alice', cancelAll1)
    const neither = { ...env }
    delete neither.signature
    expect((await send(svc, neither)).body.error?.code).toBe('AmbiguousAuthFields')
    expect((await send(svc, { ...env, signatures: [env.signature] })).body.error?.code).toBe('AmbiguousAuthFields')
  })

  it('refuses multisig signatures on public actions (SignaturesNotAllowedForAction)', async () => {
    const env = await sign('alice', cancelAll1)
    const multi = { ...env, signatures: [env.signature] }
    delete (multi as { signature?: string }).signature
    const r = await send(svc, multi)
    expect(r.body).toEqual({ submission_status: 'rejected', error: { code: 'SignaturesNotAllowedForAction' } })
  })

  it('requires eip712 for owner actions (LegacySignatureNotAccepted)', async () => {
    const env = await sign('alice', { type: 'revokeAgent', slot_id: 0 })
    delete env.auth_scheme
    expect((await send(svc, env)).body.error?.code).toBe('LegacySignatureNotAccepted')
    expect((await send(svc, { ...env, auth_scheme: 'legacy' })).body.error?.code).toBe('LegacySignatureNotAccepted')
  })

  it('refuses agent_epoch on eip712 actions (Eip712AgentEpochNotAllowed)', async () => {
    const env = await sign('alice', { type: 'revokeAgent', slot_id: 0 })
    expect((await send(svc, { ...env, agent_epoch: '1' })).body.error?.code).toBe('Eip712AgentEpochNotAllowed')
  })

  it('reports action parse errors: MissingOidOrCloid, MissingCloid, InvalidCloid, InvalidAgentSlot, InvalidAgent', async () => {
    const codeOf = async (action: unknown) => (await send(svc, { ...(await sign('alice', cancelAll1)), action } as never)).body.error?.code
    expect(await codeOf({ type: 'cancel', market_id: '1' })).toBe('MissingOidOrCloid')
    expect(await codeOf({ type: 'settle', asset_id: '1', amount: '1', cash_account: addr('bob') })).toBe('MissingCloid')
    expect(await codeOf({ type: 'settle', asset_id: '1', amount: '1', cash_account: addr('bob'), cloid: '0x12' })).toBe('InvalidCloid')
    expect(await codeOf({ type: 'settle', asset_id: '1', amount: '1', cash_account: '0x12', cloid: cloid(1) })).toBe('InvalidCashAccount')
    expect(await codeOf({ type: 'repay', asset_id: 'x', amount: '1', margin_account: addr('bob'), cloid: cloid(1) })).toBe('InvalidAssetId')
    expect(await codeOf({ type: 'repay', asset_id: '1', amount: '1', margin_account: 'bob', cloid: cloid(1) })).toBe('InvalidMarginAccount')
    expect(await codeOf({ type: 'approveAgent', slot_id: 4, agent: addr('agent1') })).toBe('InvalidAgentSlot')
    expect(await codeOf({ type: 'approveAgent', slot_id: 1, agent: '0xnope' })).toBe('InvalidAgent')
    expect(await codeOf({ type: 'order', market_id: '1', side: 'up', order_type: 'limit', tif: 'gtc', price: '1', quantity: '1' })).toBe(
      'InvalidJson',
    )
  })

  it('refuses a batch outside 1..10 items with EncodeLengthOverflow and no tx_hash', async () => {
    // the client encoder refuses to sign such a batch, so forge the body around a valid signature
    const env = await sign('alice', { type: 'batch', items: [cancelAll1 as never] })
    const r = await send(svc, { ...env, action: { type: 'batch', items: [] } } as never)
    expect(r.body).toEqual({ submission_status: 'rejected', error: { code: 'EncodeLengthOverflow' } })
    const eleven = Array.from({ length: 11 }, () => cancelAll1)
    expect((await send(svc, { ...env, action: { type: 'batch', items: eleven } } as never)).body.error?.code).toBe('EncodeLengthOverflow')
  })

  it('refuses a price or size finer than the market allows (InvalidQuantityPrecision, no tx_hash)', async () => {
    const r = await send(svc, await sign('alice', ask('65000.001')))
    expect(r.body).toEqual({ submission_status: 'rejected', error: { code: 'InvalidQuantityPrecision' } })
    expect((await send(svc, await sign('alice', ask('65000', '0.000001')))).body.error?.code).toBe('InvalidQuantityPrecision')
  })

  it('answers 413 over 256 KiB', async () => {
    const r = await send(svc, JSON.stringify({ pad: 'x'.repeat(256 * 1024) }))
    expect(r.status).toBe(413)
  })

  it('accepts a JSON integer nonce', async () => {
    const env = await sign('alice', cancelAll1)
    const r = await send(svc, { ...env, nonce: Number(env.nonce) })
    expect(r.body.submission_status).toBe('accepted')
  })
})

describe('x-trace-id', () => {
  it('echoes a valid trace id and generates one otherwise', async () => {
    const a = await send(svc, await sign('alice', cancelAll1), { 'x-trace-id': 'trace-123' })
    expect(a.headers?.['x-trace-id']).toBe('trace-123')
    const b = await send(svc, await sign('alice', cancelAll1), { 'x-trace-id': 'bad id with spaces' })
    expect(b.headers?.['x-trace-id']).toMatch(/^[0-9a-f]{32}$/)
    const c = await send(svc, '{}')
    expect(c.headers?.['x-trace-id']).toMatch(/^[0-9a-f]{32}$/)
  })
})

describe('signatures and authority', () => {
  it('rejects a tampered payload: another authority is recovered (AccountNotFound), with tx_hash', async () => {
    const env = await sign('alice', ask())
    const tampered = { ...env, action: { ...env.action, quantity: '0.6' } }
    const r = await send(svc, tampered as never)
    expect(r.body.submission_status).toBe('rejected')
    expect(r.body.tx_hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(r.body.error?.code).toBe('AccountNotFound')
  })

  it('rejects a non-recoverable signature with BadSignature', async () => {
    const env = await sign('alice', cancelAll1)
    const r = await send(svc, { ...env, signature: `0x${'00'.repeat(64)}1b` })
    expect(r.body).toMatchObject({ submission_status: 'rejected', error: { code: 'BadSignature' } })
    expect(r.body.tx_hash).toBeDefined()
  })

  it('detects a signature made for another network (WrongChainId)', async () => {
    const env = await sign('alice', cancelAll1, { chainId: CHAIN_IDS.mainnet })
    const r = await send(svc, env)
    expect(r.body).toMatchObject({ submission_status: 'rejected', error: { code: 'WrongChainId' } })
  })
})

describe('nonces and expiry', () => {
  it('rejects a reused nonce (BadNonce)', async () => {
    const nonce = nextNonce()
    expect((await trade(svc, 'alice', cancelAll1, { nonce })).submission_status).toBe('accepted')
    const again = await trade(svc, 'alice', { type: 'cancelAll', market_id: '2' }, { nonce })
    expect(again).toMatchObject({ submission_status: 'rejected', error: { code: 'BadNonce' } })
  })

  it('rejects a nonce outside block time -2 days .. +1 day', async () => {
    const day = 86_400_000n
    const now = BigInt(Date.now())
    expect((await trade(svc, 'alice', cancelAll1, { nonce: now - 2n * day - 60_000n })).error?.code).toBe('BadNonce')
    expect((await trade(svc, 'alice', cancelAll1, { nonce: now + day + 60_000n })).error?.code).toBe('BadNonce')
  })

  it('keeps the latest 100 nonces: once full, a nonce must exceed the smallest retained one', async () => {
    const s = makeService()
    fund(s, 'carol')
    const base = BigInt(Date.now()) - 3_600_000n
    for (let i = 0; i < 100; i++) {
      const r = await trade(s, 'carol', cancelAll1, { nonce: base + 10n + BigInt(i) })
      expect(r.submission_status).toBe('accepted')
    }
    expect((await trade(s, 'carol', cancelAll1, { nonce: base + 5n })).error?.code).toBe('BadNonce')
    expect((await trade(s, 'carol', cancelAll1, { nonce: base + 500n })).submission_status).toBe('accepted')
    // base+10 was dropped from the window by that last one, yet is still at or below the smallest retained
    expect((await trade(s, 'carol', cancelAll1, { nonce: base + 10n })).error?.code).toBe('BadNonce')
    await s.stop()
  })

  it('fails an envelope past expires_after_ms fast with ExpiredTx (HTTP 200)', async () => {
    const r = await send(svc, await sign('alice', cancelAll1, { expiresAfterMs: BigInt(Date.now() - 1000) }))
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ submission_status: 'rejected', error: { code: 'ExpiredTx' } })
    expect(r.body.tx_hash).toBeDefined()
    const ok = await trade(svc, 'alice', cancelAll1, { expiresAfterMs: BigInt(Date.now() + 60_000) })
    expect(ok.submission_status).toBe('accepted')
  })
})

describe('agents', () => {
  it('approve -> epoch in userAgents -> agent trades with that epoch; wrong epoch, direct signing and revoked keys fail', async () => {
    const s = makeService()
    fund(s, 'dave')
    expect(await trade(s, 'dave', { type: 'approveAgent', slot_id: 1, agent: addr('agent1') })).toMatchObject({
      submission_status: 'accepted',
      response: { type: 'default' },
    })
    const agents = (await info(s, { type: 'userAgents', user: addr('dave') })).body
    expect(agents.agents).toHaveLength(4)
    expect(agents.agents[0]).toEqual({ slot_id: 0, agent: null, epoch: null })
    const epoch = BigInt(agents.agents[1].epoch)
    expect(agents.agents[1].agent).toBe(addr('agent1'))

    const placed = await trade(s, 'agent1', ask('65000', '0.5'), { agentEpoch: epoch })
    expect(placed).toMatchObject({ submission_status: 'accepted', response: { status: { open: {} } } })
    const oo = (await info(s, { type: 'openOrders', user: addr('dave'), market_id: 1 })).body
    expect(oo.orders).toHaveLength(1)

    expect((await trade(s, 'agent1', cancelAll1, { agentEpoch: epoch + 1n })).error?.code).toBe('AgentEpochMismatch')
    expect((await trade(s, 'agent1', cancelAll1)).error?.code).toBe('DirectSignerIsActiveAgent')
    expect((await trade(s, 'agent2', cancelAll1, { agentEpoch: 1n })).error?.code).toBe('UnknownAgent')
    // an agent can never move funds: owner actions signed by it are refused
    expect(
      (
        await trade(s, 'agent1', {
          type: 'withdraw',
          asset_id: '1',
          amount: '500000000',
          dst_chain_id: '1',
          dst_address: addr('dave'),
          withdraw_nonce: '1',
          cloid: cloid(9),
        })
      ).error?.code,
    ).toBe('DirectSignerIsActiveAgent')

    expect((await trade(s, 'dave', { type: 'revokeAgent', slot_id: 1 })).submission_status).toBe('accepted')
    expect((await trade(s, 'agent1', cancelAll1, { agentEpoch: epoch })).error?.code).toBe('UnknownAgent')
    expect((await info(s, { type: 'userAgents', user: addr('dave') })).body.agents[1]).toEqual({ slot_id: 1, agent: null, epoch: null })
    expect((await trade(s, 'dave', { type: 'revokeAgent', slot_id: 1 })).error?.code).toBe('InvalidAgentSlot')
    await s.stop()
  })

  it('refuses an agent that is the owner, an account or the zero address (InvalidAgent)', async () => {
    expect((await trade(svc, 'alice', { type: 'approveAgent', slot_id: 0, agent: addr('alice') })).error?.code).toBe('InvalidAgent')
    expect((await trade(svc, 'alice', { type: 'approveAgent', slot_id: 0, agent: addr('bob') })).error?.code).toBe('InvalidAgent')
    expect(
      (await trade(svc, 'alice', { type: 'approveAgent', slot_id: 0, agent: '0x0000000000000000000000000000000000000000' })).error?.code,
    ).toBe('InvalidAgent')
  })
})

describe('rate limits and faults', () => {
  it('limits /trade per IP (1/s, independent of /info) with retry_after_ms', async () => {
    let t = 1_000_000
    const s = createTradingService({ chainId: CHAIN_IDS.sandbox, blockMs: 0, now: () => t })
    const first = await s.handleTrade('{}', {}, '10.0.0.1')
    expect(first.status).toBe(400)
    const second = await s.handleTrade('{}', {}, '10.0.0.1')
    expect(second.status).toBe(429)
    expect(second.body).toEqual({ submission_status: 'rejected', error: { code: 'RateLimited', retry_after_ms: 1000 } })
    expect((await s.handleTrade('{}', {}, '10.0.0.2')).status).toBe(400)
    expect((await s.handleInfo('{"type":"markets"}', '10.0.0.1')).status).toBe(200)
    const infoAgain = await s.handleInfo('{"type":"markets"}', '10.0.0.1')
    expect(infoAgain.status).toBe(429)
    expect(infoAgain.body).toEqual({ error: { code: 'RateLimited', message: 'Rate limited, retry after 1000ms' } })
    t += 1000
    expect((await s.handleTrade('{}', {}, '10.0.0.1')).status).toBe(400)
    await s.stop()
  })

  it('limits a signer to its per-second budget across IPs', async () => {
    const s = makeService({ rateLimits: { infoPerSec: 1000, tradePerSec: 1000, signerPerSec: 2 } })
    fund(s, 'erin')
    expect((await trade(s, 'erin', cancelAll1)).submission_status).toBe('accepted')
    expect((await trade(s, 'erin', cancelAll1)).submission_status).toBe('accepted')
    const third = await trade(s, 'erin', cancelAll1)
    expect(third.error?.code).toBe('RateLimited')
    expect(third.error?.retry_after_ms).toBeGreaterThan(0)
    await s.stop()
  })

  it('PlaceOrderSuspended: only cancels and all-cancel batches pass', async () => {
    svc.faults.placeOrderSuspended = true
    try {
      const r = await send(svc, await sign('alice', ask()))
      expect(r.status).toBe(503)
      expect(r.body).toMatchObject({ submission_status: 'rejected', error: { code: 'PlaceOrderSuspended' } })
      expect(r.body.error?.retry_after_ms).toBeGreaterThan(0)
      expect((await trade(svc, 'alice', { type: 'batch', items: [cancelAll1, ask() as never] })).error?.code).toBe('PlaceOrderSuspended')
      expect((await trade(svc, 'alice', cancelAll1)).submission_status).toBe('accepted')
      expect(
        (await trade(svc, 'alice', { type: 'batch', items: [cancelAll1, { type: 'cancel', market_id: '1', oid: '999999' }] }))
          .submission_status,
      ).toBe('accepted')
    } finally {
      svc.faults.placeOrderSuspended = false
    }
  })

  it('Unavailable (503) never executes; NodeUnreachable (504) may; timeout executes when told so', async () => {
    const s = makeService({ waitBudgetMs: 20 })
    fund(s, 'alice')
    s.faults.unavailable503 = { count: 1 }
    const env = await sign('alice', ask('70000', '0.1', { cloid: cloid(501) }))
    const u = await send(s, env)
    expect(u.status).toBe(503)
    expect(u.body).toMatchObject({ submission_status: 'timeout', error: { code: 'Unavailable', retry_after_ms: 500 } })
    expect((await info(s, { type: 'txStatusByCloid', user: addr('alice'), cloid: cloid(501) })).body.found).toBe(false)
    // the same signed bytes can be resent and now execute
    expect((await send(s, env)).body.submission_status).toBe('accepted')

    s.faults.nodeUnreachable504 = { count: 1, executed: true }
    const n = await send(s, await sign('alice', ask('70001', '0.1', { cloid: cloid(502) })))
    expect(n.status).toBe(504)
    expect(n.body).toMatchObject({ submission_status: 'timeout', error: { code: 'NodeUnreachable' } })
    expect((await info(s, { type: 'txStatusByCloid', user: addr('alice'), cloid: cloid(502) })).body).toMatchObject({
      found: true,
      status: 'success',
      action_type: 'order',
    })

    s.faults.tradeTimeout = { count: 1, executed: false }
    const t = await send(s, await sign('alice', ask('70002', '0.1', { cloid: cloid(503) })))
    expect(t.status).toBe(200)
    expect(t.body.submission_status).toBe('timeout')
    expect(t.body.tx_hash).toBeDefined()
    expect(t.body.error).toBeUndefined()
    expect((await info(s, { type: 'orderStatus', user: addr('alice'), market_id: 1, cloid: cloid(503) })).body.found).toBe(false)
    await s.stop()
  })

  it('rate-limited fault answers 429 on both routes', async () => {
    const s = makeService()
    s.faults.rateLimited = { count: 2, retryAfterMs: 250 }
    expect((await s.handleInfo('{"type":"markets"}', 'x')).body).toEqual({
      error: { code: 'RateLimited', message: 'Rate limited, retry after 250ms' },
    })
    expect((await s.handleTrade('{}', {}, 'x')).body).toEqual({
      submission_status: 'rejected',
      error: { code: 'RateLimited', retry_after_ms: 250 },
    })
    await s.stop()
  })
})

describe('wait budget', () => {
  it('answers timeout when no block includes the tx within the budget, and the tx still runs later', async () => {
    const s = createTradingService({ chainId: CHAIN_IDS.sandbox, blockMs: 0, rateLimits: false, waitBudgetMs: 10 })
    s.deposit(addr('alice'), 1, 1000n * 100_000_000n)
    const r = await send(s, await sign('alice', cancelAll1, {}))
    expect(r.body.submission_status).toBe('timeout')
    expect(s.groundTruth()).toHaveLength(0)
    s.produceBlock()
    expect(s.groundTruth()).toHaveLength(1)
    expect(s.groundTruth()[0]).toMatchObject({ authority: addr('alice'), actionType: 'cancelAll', status: 'success' })
    await s.stop()
  })
})

describe('pending queue', () => {
  it('TooManyPending (503, retry_after_ms 50) once the queue is full; pending nonces and withdraw nonces refuse replays', async () => {
    const s = createTradingService({ chainId: CHAIN_IDS.sandbox, blockMs: 0, rateLimits: false, waitBudgetMs: 5, maxPending: 2 })
    s.deposit(addr('alice'), 1, 1000n * 100_000_000n)
    const nonce = nextNonce()
    const w = (wn: string) => ({
      type: 'withdraw' as const,
      asset_id: '1',
      amount: '500000000',
      dst_chain_id: '1',
      dst_address: addr('alice'),
      withdraw_nonce: wn,
      cloid: cloid(70),
    })
    expect((await send(s, await sign('alice', cancelAll1, { nonce }))).body.submission_status).toBe('timeout')
    expect((await send(s, await sign('alice', cancelAll1, { nonce }))).body.error?.code).toBe('BadNonce')
    expect((await send(s, await sign('alice', w('42')))).body.submission_status).toBe('timeout')
    expect((await send(s, await sign('alice', w('42')))).body.error?.code).toBe('WithdrawDuplicateNonce')
    const full = await send(s, await sign('alice', w('43')))
    expect(full.status).toBe(503)
    expect(full.body).toMatchObject({ submission_status: 'rejected', error: { code: 'TooManyPending', retry_after_ms: 50 } })
    s.produceBlock()
    expect(s.groundTruth().map((t) => t.actionType)).toEqual(['cancelAll', 'withdraw'])
    await s.stop()
  })
})

describe('agent slot changes between admission and execution', () => {
  it('a write admitted under an epoch fails at execution once the slot is revoked in an earlier tx of the same block', async () => {
    const s = createTradingService({ chainId: CHAIN_IDS.sandbox, blockMs: 0, rateLimits: false })
    s.deposit(addr('dave'), 1, 1000n * 100_000_000n)
    const approve = send(s, await sign('dave', { type: 'approveAgent', slot_id: 0, agent: addr('agent2') }))
    while (s.pendingCount() < 1) await new Promise((r) => setTimeout(r, 1))
    s.produceBlock()
    expect((await approve).body.submission_status).toBe('accepted')
    const revoke = send(s, await sign('dave', { type: 'revokeAgent', slot_id: 0 }))
    while (s.pendingCount() < 1) await new Promise((r) => setTimeout(r, 1))
    const agentWrite = send(s, await sign('agent2', cancelAll1, { agentEpoch: 1n }))
    while (s.pendingCount() < 2) await new Promise((r) => setTimeout(r, 1))
    s.produceBlock()
    expect((await revoke).body.submission_status).toBe('accepted')
    expect((await agentWrite).body).toMatchObject({ submission_status: 'rejected', error: { code: 'UnknownAgent' } })
    await s.stop()
  })
})

describe('scheme and admission refusals', () => {
  it('a trading action signed as eip712 is MalformedTx (400)', async () => {
    const env = await sign('alice', cancelAll1)
    const r = await send(svc, { ...env, auth_scheme: 'eip712' })
    expect(r.status).toBe(400)
    expect(r.body).toEqual({ submission_status: 'rejected', error: { code: 'MalformedTx' } })
  })

  it('QueryLagBackpressure refuses admission; nothing executes', async () => {
    const s = makeService()
    fund(s, 'alice')
    s.faults.queryLagBackpressure = { count: 1 }
    const r = await send(s, await sign('alice', cancelAll1))
    expect(r.status).toBe(503)
    expect(r.body).toMatchObject({ submission_status: 'rejected', error: { code: 'QueryLagBackpressure' } })
    expect(r.body.error?.retry_after_ms).toBeUndefined()
    expect(s.groundTruth()).toHaveLength(0)
    await s.stop()
  })
})
