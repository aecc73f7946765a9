import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../index'
import { devBot, devOwner } from '../scenario/dev-keys'
import { DEMO_ACCOUNTS } from '../demo-accounts'
import { DEV_OWNERS, DEV_OWNER_LABELS } from '../scenario/dev-keys'

/** The live sandbox over HTTP: admin controls for the spec cases, and what moves on its own. */

let sb: SandboxHandle
type Json = any
const admin = async (method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; body: Json }> => {
  const init: RequestInit = { method }
  if (body !== undefined) init.body = JSON.stringify(body)
  const r = await fetch(`${sb.adminUrl}/${route}`, init)
  return { status: r.status, body: await r.json() }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

beforeAll(async () => {
  sb = await startSandbox({
    seed: true,
    blockMs: 20,
    rateLimits: false,
    // the test drives the bot and the oracle feed by hand
    botIntervalMs: 3_600_000,
    markIntervalMs: 0,
    earnPayoutStageMs: 40,
    earnPendingSeconds: 1,
    earnTickMs: 20,
  })
})
afterAll(async () => {
  await sb?.stop()
})

describe('demo accounts', () => {
  it('lists the public development owners with their labels', () => {
    expect(DEMO_ACCOUNTS.map((a) => a.address)).toEqual(DEV_OWNERS.map((k) => k.address))
    expect(DEMO_ACCOUNTS.map((a) => a.label)).toEqual([...DEV_OWNER_LABELS])
    expect(DEMO_ACCOUNTS[3]).toMatchObject({ index: 3, privateKey: devOwner(3).privateKey, label: 'Credit desk' })
    expect(Object.isFrozen(DEMO_ACCOUNTS[0])).toBe(true)
  })
})

describe('/trade HTTP errors carry x-trace-id', () => {
  it('405 on GET, with a generated id or the caller’s own', async () => {
    const r = await fetch(`${sb.tradingUrl}/trade`)
    expect(r.status).toBe(405)
    expect(r.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/)
    const mine = await fetch(`${sb.tradingUrl}/trade`, { method: 'PUT', headers: { 'x-trace-id': 'client-trace-1' } })
    expect(mine.status).toBe(405)
    expect(mine.headers.get('x-trace-id')).toBe('client-trace-1')
    const bad = await fetch(`${sb.tradingUrl}/trade`, { method: 'POST', body: 'not json' })
    expect(bad.headers.get('x-trace-id')).toBeTruthy()
  })
})

describe('admin fault controls', () => {
  it('validates every new fault and applies nothing from a bad request', async () => {
    for (const trading of [
      { failTx: { cloid: '0x12' } },
      { failTx: { count: 0 } },
      { failTx: { cloid: `0x${'1'.repeat(32)}`, extra: 1 } },
      { envelopeFailure: { code: 'Nope' } },
      { envelopeFailure: { code: 'FeatureDisabled', probability: 2 } },
      { feesInactive: 'yes' },
      { vaultPayoutsInactive: 1 },
    ]) {
      const r = await admin('POST', 'faults', { trading: { ...trading, placeOrderSuspended: true } })
      expect(r.status, JSON.stringify(trading)).toBe(400)
      expect(r.body.error.code).toBe('InvalidAdminRequest')
    }
    expect((await admin('GET', 'state')).body.faults.trading.placeOrderSuspended).toBe(false)

    const ok = await admin('POST', 'faults', {
      trading: {
        failTx: { cloid: `0x${'AB'.repeat(16)}` },
        envelopeFailure: { code: 'InvalidBatchLength' },
        feesInactive: true,
        vaultPayoutsInactive: true,
      },
    })
    expect(ok.status).toBe(200)
    expect(ok.body.faults.trading).toMatchObject({
      failTx: { cloid: `0x${'ab'.repeat(16)}` },
      envelopeFailure: { code: 'InvalidBatchLength', count: 1 },
      feesInactive: true,
      vaultPayoutsInactive: true,
    })
    const reset = await admin('POST', 'faults/reset')
    expect(reset.body.faults.trading).toMatchObject({
      failTx: null,
      envelopeFailure: null,
      feesInactive: false,
      vaultPayoutsInactive: false,
    })
  })
})

describe('oracle feed controls', () => {
  it('steps, freezes (step refused), unfreezes; reset unfreezes too', async () => {
    const before = (await admin('GET', 'marks')).body
    expect(before.oracle).toEqual({ status: 'available' })
    const stepped = await admin('POST', 'marks/step', { count: 5 })
    expect(stepped.status).toBe(200)
    expect(stepped.body.marks.map((m: Json) => m.usd_atoms)).not.toEqual(before.marks.map((m: Json) => m.usd_atoms))
    expect(stepped.body.anchors).toHaveLength(4)
    expect((await admin('POST', 'marks/step', { count: 0 })).status).toBe(400)

    expect((await admin('POST', 'marks/freeze')).body.frozen).toBe(true)
    expect((await admin('GET', 'state')).body.marks_frozen).toBe(true)
    expect((await admin('POST', 'marks/step')).status).toBe(409)
    expect((await admin('POST', 'marks/unfreeze')).body.frozen).toBe(false)
    await admin('POST', 'marks/freeze')
    await admin('POST', 'faults/reset')
    expect((await admin('GET', 'marks')).body.frozen).toBe(false)
  })
})

describe('block height jumps', () => {
  it('advances N blocks at once and validates the count', async () => {
    const h0 = (await admin('GET', 'state')).body.head.height
    const r = await admin('POST', 'blocks/advance', { count: 10_000 })
    expect(r.status).toBe(200)
    expect(r.body.height).toBeGreaterThanOrEqual(h0 + 10_000)
    for (const count of [0, -1, 1.5, '10', undefined]) expect((await admin('POST', 'blocks/advance', { count })).status).toBe(400)
  })
})

describe('earn: on its own, and held records', () => {
  const user = devOwner(2).address

  it('an instant withdrawal pays out through its stages without any read or admin call', async () => {
    const rec = sb.earn.createWithdrawal({
      user,
      userNonce: sb.earn.nextNonce(user),
      type: 'instant',
      assetId: 1,
      gross: 100_000_000n,
      deadline: Date.now() + 60_000,
    })
    expect(rec.status).toBe('created')
    const statusNow = () => (sb.earn.snapshot().withdrawals as Json[]).find((w) => w.operationId === rec.operation_id).status
    // the snapshot does not advance the pool: only its own timer moves the record (polled, the machine may be loaded)
    const until = Date.now() + 10_000
    while (statusNow() !== 'completed' && Date.now() < until) await sleep(50)
    expect(statusNow()).toBe('completed')
  })

  it('a non-final record can carry failure_code and then does not move; resolve pays it out', async () => {
    const rec = sb.earn.createWithdrawal({
      user,
      userNonce: sb.earn.nextNonce(user),
      type: 'instant',
      assetId: 1,
      gross: 100_000_000n,
      deadline: Date.now() + 60_000,
    })
    // Held in-process at once: the pool advances instant withdrawals every 40 ms on its own, faster
    // than an admin round trip on a loaded machine. The admin route is then checked on the held record.
    sb.earn.holdWithFailure(rec.operation_id, 'payout_delayed', 'bridge congested')
    expect((await admin('POST', 'earn/hold-failure', { operation_id: rec.operation_id, failure_code: 'Bad Code' })).status).toBe(400)
    expect((await admin('POST', 'earn/hold-failure', { operation_id: rec.operation_id })).status).toBe(400)
    const held = await admin('POST', 'earn/hold-failure', {
      operation_id: rec.operation_id,
      failure_code: 'payout_delayed',
      failure_message: 'bridge congested',
    })
    expect(held.status).toBe(200)
    expect(held.body).toMatchObject({ status: 'created', failure_code: 'payout_delayed', failure_message: 'bridge congested' })
    await sleep(300)
    const again = sb.earn.withdrawal(user, rec.operation_id)
    expect(again).toMatchObject({ status: 'created', failure_code: 'payout_delayed' })
    const done = await admin('POST', 'earn/resolve', { operation_id: rec.operation_id })
    expect(done.body.status).toBe('completed')
    expect('failure_code' in done.body).toBe(false)
    // a terminal record cannot be held
    expect((await admin('POST', 'earn/hold-failure', { operation_id: rec.operation_id, failure_code: 'x' })).status).toBe(400)
  })
})

describe('market maker around the moving marks', () => {
  it('quotes at the mark-implied mid and keeps filling as marks move', async () => {
    const bot = sb.bot!
    expect(bot).not.toBeNull()
    const fills0 = sb.trading.recentFills(devBot(0).address, 10_000).length
    for (let i = 0; i < 20; i++) {
      await admin('POST', 'marks/step', { count: 10 })
      await bot.cycle()
      const marks = new Map(sb.trading.marks().map((m) => [m.assetId, m.usdAtoms]))
      // market 1: BTC (3) in USDC (1), price_decimals 2, step 5.00
      const raw = (marks.get(3)! * 100n) / marks.get(1)!
      const expected = ((raw + 250n) / 500n) * 500n
      expect(bot.mids()['1']).toBe((Number(expected) / 100).toString())
    }
    expect(sb.trading.recentFills(devBot(0).address, 10_000).length).toBeGreaterThan(fills0)
  })
})
