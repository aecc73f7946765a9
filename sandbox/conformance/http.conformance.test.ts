// HTTP-level items: body caps (413), trace ids, per-IP rate limits, loopback-only binding,
// the faucet and admin validation, and the /trade faults with ground truth by cloid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../index'
import { devOwner } from '../scenario/dev-keys'
import { getJson, newCloid, postJson, postRaw, startTestSandbox, tradeSigner } from '../testing/conformance-harness'

let sb: SandboxHandle
const admin = (path: string, body: unknown) => postJson(`${sb.adminUrl}/${path}`, body)

beforeAll(async () => {
  sb = await startTestSandbox({ seed: true })
})
afterAll(async () => {
  await sb?.stop()
})

describe('body caps and trace ids', () => {
  it('413 above 64 KiB on /info and 256 KiB on /trade; earn stays HTTP 200', async () => {
    const big = (n: number) => JSON.stringify({ type: 'markets', pad: 'x'.repeat(n) })
    expect((await postRaw(`${sb.tradingUrl}/info`, big(64 * 1024))).status).toBe(413)
    expect((await postRaw(`${sb.tradingUrl}/info`, big(60 * 1024))).status).not.toBe(413)
    const t = await postRaw(`${sb.tradingUrl}/trade`, big(256 * 1024))
    expect(t.status).toBe(413)
    expect(t.headers.get('x-trace-id')).toBeTruthy()
    const e = await postRaw(`${sb.earnUrl}/api/v3/earn`, big(64 * 1024))
    expect(e.status).toBe(200)
    expect(e.body.code).toBe(131004)
    expect(e.headers.get('trace_id')).toMatch(/^[0-9a-f]{32}$/)
  })

  it('/trade echoes a valid x-trace-id and replaces an invalid one; /info sends none', async () => {
    const r1 = await postRaw(`${sb.tradingUrl}/trade`, '{}', { 'x-trace-id': 'abcdef0123456789' })
    expect(r1.headers.get('x-trace-id')).toBe('abcdef0123456789')
    const r2 = await postRaw(`${sb.tradingUrl}/trade`, '{}', { 'x-trace-id': 'bad id!' })
    expect(r2.headers.get('x-trace-id')).toMatch(/^[0-9A-Za-z-]+$/)
    expect(r2.headers.get('x-trace-id')).not.toBe('bad id!')
    const info = await postJson(`${sb.tradingUrl}/info`, { type: 'markets' })
    expect(info.headers.get('x-trace-id')).toBeNull()
  })

  it('rejects unknown routes and methods', async () => {
    expect((await postJson(`${sb.tradingUrl}/nope`, {})).status).toBe(404)
    expect((await fetch(`${sb.tradingUrl}/info`)).status).toBe(405)
  })
})

describe('binding and rate limits', () => {
  it('refuses to bind anything but loopback', async () => {
    await expect(startSandbox({ host: '0.0.0.0' as '127.0.0.1' })).rejects.toThrow(/loopback|127\.0\.0\.1/)
  })

  it('per-IP /info limit answers 429 RateLimited with a delay', async () => {
    const limited = await startTestSandbox({ rateLimits: { infoPerSec: 1, tradePerSec: 1, signerPerSec: 1000 } })
    try {
      const a = await postJson(`${limited.tradingUrl}/info`, { type: 'markets' })
      const b = await postJson(`${limited.tradingUrl}/info`, { type: 'markets' })
      expect(a.status).toBe(200)
      expect(b.status).toBe(429)
      expect(b.body.error.code).toBe('RateLimited')
      expect(b.body.error.message).toMatch(/\d+\s*ms/)
    } finally {
      await limited.stop()
    }
  })
})

describe('faucet and admin', () => {
  it('faucet credits trading and earn; bad input is a clear 400', async () => {
    const who = '0x' + 'ab'.repeat(20)
    const r = await postJson(`${sb.tradingUrl}/sandbox/deposit`, { address: who, asset_id: 1, amount: '500000000' })
    expect(r.status).toBe(200)
    const e = await postJson(`${sb.tradingUrl}/sandbox/deposit`, {
      target: 'earn',
      address: who,
      asset_id: 1,
      amount: '500000000',
      deposit_type: 'direct_transfer',
    })
    expect(e.body.deposit).toMatchObject({ deposit_type: 'direct_transfer', status: 'credited' })
    const bad = await postJson(`${sb.tradingUrl}/sandbox/deposit`, { address: who, asset_id: 1, amount: '1.5' })
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toMatch(/atoms/)
    expect((await admin('faults', { trading: { nodeUnreachable504: { count: 1 } } })).status).toBe(400) // executed is required
    expect((await admin('faults', { trading: { bogus: true } })).status).toBe(400)
    expect((await getJson(`${sb.adminUrl}/state`)).body.faults.trading.nodeUnreachable504).toBeNull()
  })
})

describe('/trade faults and ground truth', () => {
  const order = (cloid: string) => ({
    type: 'order',
    market_id: '1',
    side: 'ask',
    order_type: 'limit',
    tif: 'gtc',
    price: '90000',
    quantity: '0.001',
    cloid,
  })
  const truth = async (cloid: string) => (await getJson(`${sb.adminUrl}/ground-truth?cloid=${cloid}`)).body.transactions as unknown[]
  const waitTruth = async (cloid: string) => {
    for (let i = 0; i < 100; i++) {
      const t = await truth(cloid)
      if (t.length > 0) return t
      await new Promise((r) => setTimeout(r, 20))
    }
    return []
  }
  let s: ReturnType<typeof tradeSigner>
  beforeAll(() => {
    s = tradeSigner(devOwner(2).privateKey, sb.chainId)
  })

  it('504 NodeUnreachable executed: the transaction is in the ground truth', async () => {
    await admin('faults', { trading: { nodeUnreachable504: { count: 1, executed: true } } })
    const cloid = newCloid()
    const r = await postRaw(`${sb.tradingUrl}/trade`, await s.body(order(cloid)))
    expect(r.status).toBe(504)
    expect(r.body).toMatchObject({ submission_status: 'timeout', error: { code: 'NodeUnreachable' } })
    expect(await waitTruth(cloid)).toHaveLength(1)
  })

  it('504 not executed and 503 Unavailable: nothing ran', async () => {
    await admin('faults', { trading: { nodeUnreachable504: { count: 1, executed: false } } })
    const c1 = newCloid()
    expect((await postRaw(`${sb.tradingUrl}/trade`, await s.body(order(c1)))).status).toBe(504)
    await admin('faults', { trading: { unavailable503: { count: 1 } } })
    const c2 = newCloid()
    const r = await postRaw(`${sb.tradingUrl}/trade`, await s.body(order(c2)))
    expect(r.status).toBe(503)
    expect(r.body.error.code).toBe('Unavailable')
    await new Promise((res) => setTimeout(res, 100))
    expect(await truth(c1)).toHaveLength(0)
    expect(await truth(c2)).toHaveLength(0)
  })

  it('wait-budget timeout, RateLimited and PlaceOrderSuspended', async () => {
    await admin('faults', { trading: { tradeTimeout: { count: 1, executed: true } } })
    const c = newCloid()
    const t = await postRaw(`${sb.tradingUrl}/trade`, await s.body(order(c)))
    expect(t.status).toBe(200)
    expect(t.body.submission_status).toBe('timeout')
    expect(await waitTruth(c)).toHaveLength(1)

    await admin('faults', { trading: { rateLimited: { count: 1, retryAfterMs: 700 } } })
    const rl = await postRaw(`${sb.tradingUrl}/trade`, await s.body(order(newCloid())))
    expect(rl.status).toBe(429)
    expect(rl.body.error).toMatchObject({ code: 'RateLimited', retry_after_ms: 700 })

    await admin('faults', { trading: { placeOrderSuspended: true } })
    const ps = await postRaw(`${sb.tradingUrl}/trade`, await s.body(order(newCloid())))
    expect(ps.status).toBe(503)
    expect(ps.body.error.code).toBe('PlaceOrderSuspended')
    const cancel = await postRaw(`${sb.tradingUrl}/trade`, await s.body({ type: 'cancelAll', market_id: '1' }))
    expect(cancel.body.submission_status).toBe('accepted')
    await admin('faults/reset', {})
  })

  it('oracle unavailable, stale marks and a frozen credit account show in /info', async () => {
    const credit = devOwner(3).address
    await admin('faults', { trading: { oracleUnavailable: 'StalePrice', staleMarks: true } })
    const oracle = await postJson(`${sb.tradingUrl}/info`, { type: 'oracleStatus' })
    expect(oracle.body.oracle_status).toEqual({ status: 'unavailable', reason_code: 'StalePrice' })
    await admin('credit/freeze', { address: credit })
    const s2 = await open(credit)
    expect(s2.status).toBe('frozen')
    expect(s2.available_usd_atoms).toBeNull()
    await admin('credit/unfreeze', { address: credit })
    await admin('faults/reset', {})
    expect((await open(credit)).status).toBe('active')
  })
})

async function open(user: string) {
  // The request parameter name of spotCreditAccount is "not shown"; the sandbox takes `user`.
  return (await postJson(`${sb.tradingUrl}/info`, { type: 'spotCreditAccount', user })).body
}
