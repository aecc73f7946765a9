import { beforeEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { EARN_DATA_SCHEMAS, EarnEnvelopeSchema } from '../../main/core/wire/earn'
import { EarnPool } from './earn-pool'
import { EarnHandler } from './earn-handler'
import { earnSigner } from './earn-signer'
import { defaultEarnSettings } from './pool-settings'

const KEY_A = '0x1111111111111111111111111111111111111111111111111111111111111111' as const
const KEY_B = '0x2222222222222222222222222222222222222222222222222222222222222222' as const
const ONE = 100_000_000n

let clock = 1_800_000_000_000
let pool: EarnPool
let handler: EarnHandler
const settings = defaultEarnSettings({ pendingSeconds: 120, payoutStageMs: 1000, yieldPeriodMs: 60_000 })
const ctx = { domain: settings.domain, chainId: settings.chainId }
const alice = earnSigner(KEY_A, ctx)
const bob = earnSigner(KEY_B, ctx)

async function call(body: unknown, ip = '127.0.0.1') {
  const res = await handler.handle(typeof body === 'string' ? body : JSON.stringify(body), ip)
  expect(res.status).toBe(200)
  expect(res.headers.trace_id).toMatch(/^[0-9a-f]{32}$/)
  const env = JSON.parse(res.body) as { code: number; message: string; data?: unknown }
  expect(Object.keys(env)[0]).toBe('code')
  expect(v.safeParse(EarnEnvelopeSchema, env).success).toBe(true)
  return env
}
async function ok<T = any>(body: { type: string } & Record<string, unknown>): Promise<T> {
  const env = await call(body)
  expect(env, env.message).toMatchObject({ code: 0, message: 'success' })
  const schema = EARN_DATA_SCHEMAS[body.type as keyof typeof EARN_DATA_SCHEMAS]
  const parsed = v.safeParse(schema, env.data)
  expect(parsed.success, JSON.stringify(parsed.issues?.[0])).toBe(true)
  return env.data as T
}
async function fails(body: unknown, message: string, code = 131004) {
  const env = await call(body)
  expect(env).toEqual({ code, message })
}
const deadline = () => clock + 60_000
const account = (s = alice) => ok({ type: 'account', user_address: s.address })
const balance = async (assetId = 1, s = alice) => (await account(s)).balances.find((b: any) => b.asset_id === assetId)

function identityHolds(b: any) {
  const lhs = BigInt(b.lifetime_deposit) + BigInt(b.lifetime_yield) - BigInt(b.lifetime_withdraw)
  const rhs = BigInt(b.earn_balance) + BigInt(b.in_queue_balance) + BigInt(b.withdraw_locked_balance)
  return lhs === rhs
}

beforeEach(() => {
  clock = 1_800_000_000_000 + 1 // just after a yield boundary so tests control distributions
  pool = new EarnPool(settings, () => clock)
  handler = new EarnHandler(pool, { now: () => clock, ratePerSecond: false })
  pool.deposit({ user: alice.address, assetId: 1, amount: 1000n * ONE })
})

describe('earn request validation (131004 messages)', () => {
  it('refuses unknown and missing types, addresses, limits', async () => {
    await fails({ type: 'nope' }, 'unknown type: nope')
    await fails({ type: 'account' }, 'user_address is required')
    await fails({ type: 'account', user_address: '0x123' }, 'user_address must be 0x + 40 hex chars')
    await fails({ type: 'deposits', user_address: alice.address, limit: 201 }, 'limit exceeds max 200')
    await fails({ type: 'withdrawals', user_address: alice.address, status: 'done' }, 'invalid status: done')
    await fails('not json', 'request body must be a JSON object')
  })

  it('checks signature shape, deadline, recovery id and signer', async () => {
    const body = await alice.create({
      user_nonce: 0,
      withdraw_type: 'scheduled',
      asset_id: 1,
      amount: String(10n * ONE),
      deadline_unix_ms: deadline(),
    })
    await fails({ ...body, user_signature: '0x1234' }, 'user_signature must be 0x + 130 hex chars (65 bytes)')
    await fails({ ...body, deadline_unix_ms: clock - 1 }, 'deadline_unix_ms must be in the future')
    await fails({ ...body, user_signature: body.user_signature.slice(0, 130) + '05' }, 'invalid signature recovery id')
    await fails({ ...body, amount: String(11n * ONE) }, 'withdrawal signer does not match user')
    await fails({ ...body, user_address: bob.address }, 'withdrawal signer does not match user')
    // v as 0/1 instead of 27/28 is the same signature
    const v01 = body.user_signature.slice(0, 130) + (parseInt(body.user_signature.slice(130), 16) - 27).toString(16).padStart(2, '0')
    const rec = await ok({ ...body, user_signature: v01 })
    expect(rec.status).toBe('queued')
  })
})

describe('scheduled withdrawals', () => {
  it('queue, claim after the wait, payout stages, lifetime identity', async () => {
    const acct0 = await account()
    expect(acct0.next_user_nonce).toBe(0)
    const rec = await ok(
      await alice.create({
        user_nonce: 0,
        withdraw_type: 'scheduled',
        asset_id: 1,
        amount: String(100n * ONE),
        deadline_unix_ms: deadline(),
      }),
    )
    expect(rec).toMatchObject({ status: 'queued', fee_amount: '0', user_amount: String(100n * ONE), claimable_at_unix_ms: clock + 120_000 })
    expect(rec.operation_id).toBe(`withdraw:${alice.address.toLowerCase()}:0`)
    expect('core_tx_hash' in rec).toBe(false)
    let b = await balance()
    expect(b).toMatchObject({
      earn_balance: String(900n * ONE),
      in_queue_balance: String(100n * ONE),
      active_withdraw_operation_id: rec.operation_id,
    })
    expect(identityHolds(b)).toBe(true)
    expect((await account()).next_user_nonce).toBe(1)

    await fails(
      await alice.create({ user_nonce: 1, withdraw_type: 'scheduled', asset_id: 1, amount: String(ONE), deadline_unix_ms: deadline() }),
      'user asset already has an active withdrawal',
    )
    // spec §5: this first (too early) claim attempt binds its digest; only its bytes can claim later
    const claimBody = await alice.claim(rec.operation_id, clock + 300_000)
    await fails(claimBody, 'withdrawal is not claimable')

    clock += 120_000
    await fails(await alice.cancel(rec.operation_id, deadline()), 'withdrawal is not cancelable')
    await fails(await alice.claim(rec.operation_id, deadline()), 'withdrawal is not claimable')
    const claimed = await ok(claimBody)
    expect(claimed.status).toBe('authorizing')
    expect(claimed.claimed_at_unix_ms).toBe(clock)
    // byte-identical resend is fine; a second, different claim signature is refused
    expect((await ok(claimBody)).operation_id).toBe(rec.operation_id)
    await fails(await alice.claim(rec.operation_id, deadline() + 1), 'withdrawal is not claimable')

    clock += 1000
    expect((await ok({ type: 'withdrawal', user_address: alice.address, operation_id: rec.operation_id })).status).toBe('authorized')
    clock += 1000
    const transferring = (await ok({ type: 'withdrawals', user_address: alice.address })).items[0]
    expect(transferring.status).toBe('transferring')
    expect(transferring.core_tx_hash).toMatch(/^0x/)
    expect('fee_core_tx_hash' in transferring).toBe(false)
    const detail = await ok({ type: 'withdrawal', user_address: alice.address, operation_id: rec.operation_id })
    expect('core_tx_hash' in detail).toBe(false)
    clock += 1000
    b = await balance()
    expect(b).toMatchObject({
      in_queue_balance: '0',
      lifetime_withdraw: String(100n * ONE),
      active_withdraw_operation_id: '',
      active_withdrawal: null,
    })
    expect(identityHolds(b)).toBe(true)
    const done = await ok({ type: 'withdrawal', user_address: alice.address, operation_id: rec.operation_id })
    expect(done.status).toBe('claimed')
    expect(done.completed_at_unix_ms).toBe(clock)
  })

  it('cancel inside the window returns the amount and touches no lifetime counter', async () => {
    const rec = await ok(
      await alice.create({
        user_nonce: 0,
        withdraw_type: 'scheduled',
        asset_id: 1,
        amount: String(5n * ONE),
        deadline_unix_ms: deadline(),
      }),
    )
    pool.paused = true // pause blocks create and claim, not cancel
    const c = await ok(await alice.cancel(rec.operation_id, deadline()))
    expect(c.status).toBe('cancelled')
    expect(c.cancelled_at_unix_ms).toBe(clock)
    const b = await balance()
    expect(b).toMatchObject({
      earn_balance: String(1000n * ONE),
      in_queue_balance: '0',
      lifetime_withdraw: '0',
      active_withdraw_operation_id: '',
    })
    await fails(await alice.cancel(rec.operation_id, deadline()), 'withdrawal is not cancelable')
  })

  it('withdrawal of another address is not found; paused blocks create and claim', async () => {
    pool.deposit({ user: bob.address, assetId: 1, amount: 10n * ONE })
    const rec = await ok(
      await bob.create({ user_nonce: 0, withdraw_type: 'scheduled', asset_id: 1, amount: String(2n * ONE), deadline_unix_ms: deadline() }),
    )
    await fails({ type: 'withdrawal', user_address: alice.address, operation_id: rec.operation_id }, 'withdrawal not found')
    await fails(await alice.cancel(rec.operation_id, deadline()), 'withdrawal not found')
    pool.paused = true
    expect((await ok({ type: 'config' })).withdrawal_paused).toBe(true)
    await fails(
      await alice.create({ user_nonce: 0, withdraw_type: 'scheduled', asset_id: 1, amount: String(ONE), deadline_unix_ms: deadline() }),
      'withdrawals are paused',
    )
    clock += 120_000
    await fails(await bob.claim(rec.operation_id, deadline()), 'withdrawals are paused')
  })
})

describe('instant withdrawals and limits', () => {
  it('charges the fee on the gross, cannot be cancelled, completes', async () => {
    const rec = await ok(
      await alice.create({
        user_nonce: 0,
        withdraw_type: 'instant',
        asset_id: 1,
        amount: String(100n * ONE),
        deadline_unix_ms: deadline(),
      }),
    )
    expect(rec).toMatchObject({
      status: 'created',
      fee_bps_snapshot: 30,
      fee_amount: String(30n * 1_000_000n),
      user_amount: String(100n * ONE - 30_000_000n),
      claimable_at_unix_ms: null,
    })
    expect((await balance()).withdraw_locked_balance).toBe(String(100n * ONE))
    await fails(await alice.cancel(rec.operation_id, deadline()), 'withdrawal is not cancelable')
    await fails(await alice.claim(rec.operation_id, deadline()), 'withdrawal is not claimable')
    clock += 4000
    const done = (await ok({ type: 'withdrawals', user_address: alice.address, status: 'completed' })).items[0]
    expect(done.fee_core_tx_hash).toMatch(/^0x/)
    const b = await balance()
    expect(b).toMatchObject({ withdraw_locked_balance: '0', lifetime_withdraw: String(100n * ONE), earn_balance: String(900n * ONE) })
    expect(identityHolds(b)).toBe(true)
  })

  it('manual_review holds the payout and does not resolve on its own', async () => {
    pool.faults.manualReview = true
    const rec = await ok(
      await alice.create({ user_nonce: 0, withdraw_type: 'instant', asset_id: 1, amount: String(10n * ONE), deadline_unix_ms: deadline() }),
    )
    clock += 60_000
    const r = await ok({ type: 'withdrawal', user_address: alice.address, operation_id: rec.operation_id })
    expect(r).toMatchObject({ status: 'manual_review', failure_code: 'payout_transfer_failed' })
    expect((await balance()).active_withdraw_operation_id).toBe(rec.operation_id)
    pool.resolveManualReview(rec.operation_id)
    expect((await balance()).active_withdraw_operation_id).toBe('')
    expect(identityHolds(await balance())).toBe(true)
  })

  it('enforces min, max, balance, type switch and the nonce', async () => {
    const mk = (amount: bigint, type: 'scheduled' | 'instant' = 'scheduled', asset_id = 1, user_nonce = 0) =>
      alice.create({ user_nonce, withdraw_type: type, asset_id, amount: String(amount), deadline_unix_ms: deadline() })
    await fails(await mk(ONE - 1n), 'withdrawal amount is below minimum')
    await fails(await mk(10_000_001n * ONE), 'withdrawal amount exceeds maximum')
    await fails(await mk(1001n * ONE), 'insufficient earn balance')
    await fails(await mk(ONE, 'instant', 2), 'withdrawal type is disabled for asset')
    await fails(await mk(ONE, 'scheduled', 1, 3), 'user_nonce must equal next_user_nonce 0')
  })
})

describe('deposits, yield and paging', () => {
  it('lists both deposit types with the right keys; a rejected deposit writes neither side', async () => {
    pool.deposit({ user: alice.address, assetId: 1, amount: 5n * ONE, type: 'direct_transfer' })
    pool.deposit({ user: alice.address, assetId: 1, amount: 7n * ONE, reject: true })
    const page = await ok({ type: 'deposits', user_address: alice.address })
    const [rejected, direct, bridge] = page.items
    expect(rejected).toMatchObject({ status: 'rejected', deposit_type: 'bridge_deposit' })
    expect(direct.operation_id).toMatch(/^direct-transfer:424242:\d+:0:0$/)
    for (const k of ['src_chain_id', 'src_tx_hash', 'core_tx_hash']) {
      expect(k in direct).toBe(false)
      expect(k in bridge).toBe(true)
    }
    expect(bridge.operation_id).toMatch(/^deposit:1:0x[0-9a-f]{40}:\d+$/)
    expect((await balance()).lifetime_deposit).toBe(String(1005n * ONE))
  })

  it('distributes yield each period; entries reconcile with lifetime_yield', async () => {
    clock += 3 * 60_000
    const b = await balance()
    const ys = await ok({ type: 'yieldHistory', user_address: alice.address, asset_id: 1 })
    expect(ys.items.length).toBe(3)
    const sum = ys.items.reduce((s: bigint, y: any) => s + BigInt(y.yield_amount), 0n)
    expect(sum).toBe(BigInt(b.lifetime_yield))
    expect(sum > 0n).toBe(true)
    expect(identityHolds(b)).toBe(true)
    expect(ys.items[0].distribution_id).not.toMatch(/20\d\d/)
  })

  it('pages 50 by default', async () => {
    for (let i = 0; i < 50; i++) pool.deposit({ user: alice.address, assetId: 1, amount: ONE }) // 51 in all
    const p1 = await ok({ type: 'deposits', user_address: alice.address })
    expect(p1.items).toHaveLength(50)
    const p2 = await ok({ type: 'deposits', user_address: alice.address, before_id: String(p1.next_before_id) })
    expect(p2.items).toHaveLength(1)
    expect(p2.next_before_id).toBeNull()
    expect((await ok({ type: 'deposits', user_address: alice.address, limit: 200 })).items).toHaveLength(51)
  })

  it('sets next_before_id whenever a page is exactly limit long', async () => {
    pool.deposit({ user: alice.address, assetId: 1, amount: ONE })
    pool.deposit({ user: alice.address, assetId: 1, amount: ONE }) // 3 deposits in all
    const p1 = await ok({ type: 'deposits', user_address: alice.address, limit: 2 })
    expect(p1.items.length).toBe(2)
    expect(p1.next_before_id).toBe(p1.items[1].id)
    const p2 = await ok({ type: 'deposits', user_address: alice.address, limit: 2, before_id: p1.next_before_id })
    expect(p2.items.length).toBe(1)
    expect(p2.next_before_id).toBeNull()
    const full = await ok({ type: 'deposits', user_address: alice.address, limit: 3 })
    expect(full.next_before_id).not.toBeNull()
    const end = await ok({ type: 'deposits', user_address: alice.address, limit: 3, before_id: full.next_before_id })
    expect(end).toEqual({ items: [], next_before_id: null })
    // operation_id is ignored on withdrawals
    expect(await ok({ type: 'withdrawals', user_address: alice.address, operation_id: 'x' })).toEqual({ items: [], next_before_id: null })
  })
})

describe('faults and rate limit', () => {
  it('131002, 131006 executed / not executed, 201005', async () => {
    pool.faults.unavailable = true
    await fails({ type: 'config' }, 'backend unavailable', 131002)
    pool.faults.unavailable = false
    pool.faults.timeout = 'not-executed'
    const body = await alice.create({
      user_nonce: 0,
      withdraw_type: 'scheduled',
      asset_id: 1,
      amount: String(ONE),
      deadline_unix_ms: deadline(),
    })
    await fails(body, 'upstream timeout', 131006)
    expect((await account()).next_user_nonce).toBe(0)
    pool.faults.timeout = 'executed'
    await fails(body, 'upstream timeout', 131006)
    expect((await account()).next_user_nonce).toBe(1)
    pool.faults.timeout = null

    const limited = new EarnHandler(pool, { now: () => clock, ratePerSecond: 2 })
    const codes = []
    for (let i = 0; i < 3; i++) codes.push(JSON.parse((await limited.handle('{"type":"config"}', '10.0.0.1')).body).code)
    expect(codes).toEqual([0, 0, 201005])
    expect(JSON.parse((await limited.handle('{"type":"config"}', '10.0.0.2')).body).code).toBe(0)
    clock += 1000
    expect(JSON.parse((await limited.handle('{"type":"config"}', '10.0.0.1')).body).code).toBe(0)
  })

  it('a claim applied behind a 131006 is bound: the identical resend succeeds, a re-signed claim does not', async () => {
    const rec = await ok(
      await alice.create({ user_nonce: 0, withdraw_type: 'scheduled', asset_id: 1, amount: String(ONE), deadline_unix_ms: deadline() }),
    )
    clock += 120_000
    const claim = await alice.claim(rec.operation_id, deadline())
    pool.faults.timeout = 'executed'
    await fails(claim, 'upstream timeout', 131006)
    pool.faults.timeout = null
    expect((await ok(claim)).status).toBe('authorizing')
    await fails(await alice.claim(rec.operation_id, deadline() + 1), 'withdrawal is not claimable')
  })

  it('the first claim attempt binds even when it fails (deadline passed); a second, different claim is refused', async () => {
    const rec = await ok(
      await alice.create({ user_nonce: 0, withdraw_type: 'scheduled', asset_id: 1, amount: String(ONE), deadline_unix_ms: deadline() }),
    )
    clock += 120_000
    const late = await alice.claim(rec.operation_id, clock + 1_000)
    clock += 2_000
    await fails(late, 'deadline_unix_ms must be in the future')
    // a fresh signature (new deadline) is a second claim for the same operation: refused
    await fails(await alice.claim(rec.operation_id, deadline()), 'withdrawal is not claimable')
    expect((await ok({ type: 'withdrawal', user_address: alice.address, operation_id: rec.operation_id })).status).toBe('queued')
  })

  it('a claim attempt that never reached the pool (131006 not executed) binds nothing', async () => {
    const other = await ok(
      await alice.create({ user_nonce: 0, withdraw_type: 'scheduled', asset_id: 1, amount: String(ONE), deadline_unix_ms: deadline() }),
    )
    clock += 120_000
    pool.faults.timeout = 'not-executed'
    await fails(await alice.claim(other.operation_id, deadline()), 'upstream timeout', 131006)
    pool.faults.timeout = null
    expect((await ok(await alice.claim(other.operation_id, deadline() + 5))).status).toBe('authorizing')
  })

  it('survives a snapshot round trip', async () => {
    await ok(
      await alice.create({ user_nonce: 0, withdraw_type: 'scheduled', asset_id: 1, amount: String(ONE), deadline_unix_ms: deadline() }),
    )
    const snap = JSON.parse(JSON.stringify(pool.snapshot()))
    const again = new EarnPool(settings, () => clock)
    again.restore(snap)
    expect(again.account(alice.address)).toEqual(pool.account(alice.address))
    expect(again.withdrawalsPage(alice.address, { limit: 50 })).toEqual(pool.withdrawalsPage(alice.address, { limit: 50 }))
  })
})
