// earn-api.md over real HTTP: envelope, every 131004 message, the withdrawal rules, faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { EARN_DATA_SCHEMAS, EarnConfigSchema } from '../../main/core/wire/earn'
import { earnSigner } from '../earn/earn-signer'
import { devOwner } from '../scenario/dev-keys'
import type { SandboxHandle } from '../index'
import { getJson, newCloid, postJson, postRaw, startTestSandbox, tradeSigner } from '../testing/conformance-harness'

let sb: SandboxHandle
let url: string
let signer: (i: number) => ReturnType<typeof earnSigner>
const ONE = 100_000_000n

async function earn(body: unknown) {
  const r = typeof body === 'string' ? await postRaw(url, body) : await postJson(url, body)
  expect(r.status).toBe(200)
  expect(r.headers.get('trace_id')).toMatch(/^[0-9a-f]{32}$/)
  expect(Object.keys(r.body)[0]).toBe('code')
  return r.body as { code: number; message: string; data?: any }
}
async function ok(body: { type: string } & Record<string, unknown>) {
  const env = await earn(body)
  expect(env.code, env.message).toBe(0)
  expect(v.safeParse(EARN_DATA_SCHEMAS[body.type as keyof typeof EARN_DATA_SCHEMAS], env.data).success).toBe(true)
  return env.data
}
async function refused(body: unknown, message: string, code = 131004) {
  const env = await earn(body)
  expect(env).toEqual({ code, message })
  expect('data' in env).toBe(false)
}
const deadline = () => Date.now() + 60_000
const admin = (path: string, body: unknown) => postJson(`${sb.adminUrl}/${path}`, body)

beforeAll(async () => {
  sb = await startTestSandbox({ seed: true, earnPort: 0, earnPayoutStageMs: 50 })
  url = `${sb.earnUrl}/api/v3/earn`
  const cfg = (await postJson(url, { type: 'config' })).body.data
  signer = (i) => earnSigner(devOwner(i).privateKey, { domain: cfg.eip712_domain, chainId: cfg.native_chain_id })
})
afterAll(async () => {
  await sb?.stop()
})

describe('envelope and config', () => {
  it('serves the pool on its own port; config signs with the sandbox chain id', async () => {
    expect(sb.earnUrl).not.toBe(sb.tradingUrl)
    expect((await postJson(`${sb.tradingUrl}/api/v3/earn`, { type: 'config' })).status).toBe(404)
    const cfg = await ok({ type: 'config' })
    expect(v.is(EarnConfigSchema, cfg)).toBe(true)
    expect(cfg.native_chain_id).toBe(sb.chainId)
    expect(cfg.eip712_domain.verifyingContract).toBe(cfg.vault_address)
    expect(cfg.assets.find((a: any) => a.asset_id === 2).projected_apy).toBeUndefined()
  })
})

describe('every 131004 message', () => {
  it('request shape', async () => {
    await refused({ type: 'bogus' }, 'unknown type: bogus')
    await refused({ type: 'account' }, 'user_address is required')
    await refused({ type: 'account', user_address: '0xZZ' }, 'user_address must be 0x + 40 hex chars')
    await refused({ type: 'yieldHistory', user_address: devOwner(0).address, limit: 500 }, 'limit exceeds max 200')
    const body = await signer(2).create({
      user_nonce: 0,
      withdraw_type: 'scheduled',
      asset_id: 1,
      amount: String(ONE),
      deadline_unix_ms: deadline(),
    })
    await refused({ ...body, user_signature: '0xabcd' }, 'user_signature must be 0x + 130 hex chars (65 bytes)')
    await refused({ ...body, deadline_unix_ms: Date.now() - 1000 }, 'deadline_unix_ms must be in the future')
    await refused({ ...body, user_signature: body.user_signature.slice(0, 130) + '1d' }, 'invalid signature recovery id')
    await refused({ ...body, user_address: devOwner(3).address }, 'withdrawal signer does not match user')
  })

  it('withdrawal state rules on the seeded accounts', async () => {
    const o0 = signer(0)
    const acct0 = await ok({ type: 'account', user_address: o0.address })
    const usdc = acct0.balances.find((b: any) => b.asset_id === 1)
    expect(usdc.active_withdraw_operation_id).toMatch(/^withdraw:0x[0-9a-f]{40}:0$/)
    const queued = usdc.active_withdraw_operation_id
    const n0 = acct0.next_user_nonce
    await refused(
      await o0.create({ user_nonce: n0, withdraw_type: 'scheduled', asset_id: 1, amount: String(ONE), deadline_unix_ms: deadline() }),
      'user asset already has an active withdrawal',
    )
    await refused(await o0.claim(queued, deadline()), 'withdrawal is not claimable')

    const o2 = signer(2)
    await refused(
      await o2.create({
        user_nonce: 0,
        withdraw_type: 'scheduled',
        asset_id: 1,
        amount: String(10n ** 15n + 1n),
        deadline_unix_ms: deadline(),
      }),
      'withdrawal amount exceeds maximum',
    )
    await refused(
      await o2.create({ user_nonce: 0, withdraw_type: 'scheduled', asset_id: 1, amount: '5', deadline_unix_ms: deadline() }),
      'withdrawal amount is below minimum',
    )
    await refused(
      await o2.create({
        user_nonce: 0,
        withdraw_type: 'scheduled',
        asset_id: 1,
        amount: String(9000n * ONE),
        deadline_unix_ms: deadline(),
      }),
      'insufficient earn balance',
    )
    await refused(
      await o2.create({ user_nonce: 0, withdraw_type: 'instant', asset_id: 2, amount: String(ONE), deadline_unix_ms: deadline() }),
      'withdrawal type is disabled for asset',
    )
    await refused({ type: 'withdrawal', user_address: o2.address, operation_id: queued }, 'withdrawal not found')

    expect((await admin('faults', { earn: { paused: true } })).status).toBe(200)
    await refused(
      await o2.create({ user_nonce: 0, withdraw_type: 'scheduled', asset_id: 1, amount: String(ONE), deadline_unix_ms: deadline() }),
      'withdrawals are paused',
    )
    // cancelling is unaffected by the pause
    const cancelled = await ok(await o0.cancel(queued, deadline()))
    expect(cancelled.status).toBe('cancelled')
    await admin('faults', { earn: { paused: false } })
    await refused(await o0.cancel(queued, deadline()), 'withdrawal is not cancelable')
  })
})

describe('claim binding and payout', () => {
  it('claims the seeded claimable withdrawal; identical resend fine, a second signature refused', async () => {
    const o1 = signer(1)
    const page = await ok({ type: 'withdrawals', user_address: o1.address, status: 'queued' })
    const op = page.items[0].operation_id
    await refused(await o1.cancel(op, deadline()), 'withdrawal is not cancelable')
    const claim = JSON.stringify(await o1.claim(op, deadline()))
    const first = await earn(claim)
    expect(first.code).toBe(0)
    expect(first.data.status).toBe('authorizing')
    expect((await earn(claim)).code).toBe(0)
    await refused(await o1.claim(op, deadline() + 5), 'withdrawal is not claimable')
    // payout stages run on their own (50 ms each here) and end as claimed
    for (let i = 0; i < 100; i++) {
      const r = await ok({ type: 'withdrawal', user_address: o1.address, operation_id: op })
      if (r.status === 'claimed') break
      await new Promise((res) => setTimeout(res, 20))
    }
    const done = await ok({ type: 'withdrawals', user_address: o1.address, asset_id: 1, limit: 1 })
    expect(done.items[0]).toMatchObject({ operation_id: op, status: 'claimed' })
    expect(done.items[0].core_tx_hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(done.next_before_id).toBe(done.items[0].id)
  })

  it('manual_review via the admin fault, resolved by the operator', async () => {
    const o2 = signer(2)
    await admin('faults', { earn: { manualReview: true } })
    const nonce = (await ok({ type: 'account', user_address: o2.address })).next_user_nonce
    const rec = await ok(
      await o2.create({
        user_nonce: nonce,
        withdraw_type: 'instant',
        asset_id: 1,
        amount: String(10n * ONE),
        deadline_unix_ms: deadline(),
      }),
    )
    let r: any
    for (let i = 0; i < 100; i++) {
      r = await ok({ type: 'withdrawal', user_address: o2.address, operation_id: rec.operation_id })
      if (r.status === 'manual_review') break
      await new Promise((res) => setTimeout(res, 20))
    }
    expect(r.status).toBe('manual_review')
    expect(r.failure_code).toBeTruthy()
    await admin('faults', { earn: { manualReview: false } })
    expect((await admin('earn/resolve', { operation_id: rec.operation_id })).body.status).toBe('completed')
    const gt = (await getJson(`${sb.adminUrl}/ground-truth`)).body.earn
    expect(gt.identity_violations).toEqual([])
    expect(gt.withdrawals.some((w: any) => w.operation_id === rec.operation_id && w.status === 'completed')).toBe(true)
  })

  it('131002 and 131006 switched at run time', async () => {
    await admin('faults', { earn: { unavailable: true } })
    await refused({ type: 'config' }, 'backend unavailable', 131002)
    await admin('faults', { earn: { unavailable: false, timeout: 'executed' } })
    const o2 = signer(2)
    const nonce = (await ok({ type: 'account', user_address: o2.address })).next_user_nonce
    await refused(
      await o2.create({ user_nonce: nonce, withdraw_type: 'scheduled', asset_id: 1, amount: String(ONE), deadline_unix_ms: deadline() }),
      'upstream timeout',
      131006,
    )
    await admin('faults/reset', {})
    expect((await ok({ type: 'account', user_address: o2.address })).next_user_nonce).toBe(nonce + 1)
  })
})

describe('deposits from the trading chain', () => {
  it('a /trade transfer to the vault address is credited as a direct_transfer deposit', async () => {
    const cfg = await ok({ type: 'config' })
    const o0 = tradeSigner(devOwner(0).privateKey, sb.chainId)
    const r = await postRaw(
      `${sb.tradingUrl}/trade`,
      await o0.body({ type: 'transfer', to: cfg.vault_address, asset_id: '1', amount: '123400000000', cloid: newCloid() }),
    )
    expect(r.body.submission_status).toBe('accepted')
    let entry: any
    for (let i = 0; i < 100 && !entry; i++) {
      const page = await ok({ type: 'deposits', user_address: o0.address, asset_id: 1, limit: 5 })
      entry = page.items.find((d: any) => d.deposit_type === 'direct_transfer' && d.amount === '123400000000')
      if (!entry) await new Promise((res) => setTimeout(res, 20))
    }
    expect(entry).toMatchObject({ status: 'credited' })
    expect(entry.operation_id).toMatch(new RegExp(`^direct-transfer:${sb.chainId}:\\d+:\\d+:\\d+$`))
    for (const k of ['src_chain_id', 'src_tx_hash', 'core_tx_hash']) expect(k in entry).toBe(false)
  })
})

describe('rate limit', () => {
  it('answers 201005 over the configured per-IP rate, still HTTP 200', async () => {
    const limited = await startTestSandbox({ rateLimits: { infoPerSec: 1, tradePerSec: 1, signerPerSec: 1000, earnPerSec: 2 } })
    try {
      const u = `${limited.earnUrl}/api/v3/earn`
      const codes: number[] = []
      for (let i = 0; i < 4; i++) {
        const r = await postJson(u, { type: 'config' })
        expect(r.status).toBe(200)
        codes.push(r.body.code)
      }
      expect(codes.slice(0, 2)).toEqual([0, 0])
      expect(codes).toContain(201005)
    } finally {
      await limited.stop()
    }
  })
})
