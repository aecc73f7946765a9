import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { EarnHandler } from '../../../../sandbox/earn/earn-handler'
import { EarnPool } from '../../../../sandbox/earn/earn-pool'
import { defaultEarnSettings } from '../../../../sandbox/earn/pool-settings'
import { openJournalFile, type Journal } from '../../journal'
import type { HttpPoster } from '../trade/http-post'
import { TransportFailure } from '../trade/http-post'
import { EarnClient, payoutAdvice, walk, type EarnSigner } from './earn-client'

const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const acct = privateKeyToAccount(key)
const USER = acct.address
const ref = { owner: USER, role: 'owner' as const }

let j: Journal
afterEach(() => j?.closeNow())

interface Rig {
  pool: EarnPool
  client: EarnClient
  sent: string[]
  signatures: number
  /** transforms the next answers (fault injection in front of the real handler) */
  faults: ((body: string) => 'lost-after' | 'lost-before' | { code: number; message: string } | null)[]
  clock: { t: number }
}

function rig(over: Partial<ConstructorParameters<typeof EarnClient>[0]> = {}): Rig {
  const clock = { t: 1_800_000_000_000 }
  const pool = new EarnPool(defaultEarnSettings({ pendingSeconds: 60 }), () => clock.t)
  const handler = new EarnHandler(pool, { ratePerSecond: false, now: () => clock.t })
  j = openJournalFile(':memory:', { now: () => clock.t })
  const r = { pool, sent: [] as string[], signatures: 0, faults: [] as Rig['faults'], clock } as Rig
  const post: HttpPoster = async (_url, body) => {
    r.sent.push(body)
    const f = r.faults.shift()?.(body) ?? null
    if (f === 'lost-before') throw new TransportFailure('beforeWrite', 'connect', 'refused')
    if (f && typeof f === 'object') return { status: 200, headers: {}, text: JSON.stringify(f) }
    const res = await handler.handle(body, '127.0.0.1')
    if (f === 'lost-after') throw new TransportFailure('afterWrite', 'reset', 'socket hang up')
    return { status: res.status, headers: res.headers, text: res.body }
  }
  const signer: EarnSigner = {
    signTypedData: async (_ref, td) => {
      r.signatures++
      return acct.signTypedData(td as Parameters<typeof acct.signTypedData>[0])
    },
  }
  r.client = new EarnClient({
    poolUrl: 'http://pool',
    network: 'sandbox',
    journal: j,
    signer,
    post,
    now: () => clock.t,
    sleep: async (ms) => void (clock.t += ms),
    ...over,
  })
  return r
}

describe('EarnClient reads', () => {
  it('reads config and account validated, and walks every page to the end', async () => {
    const r = rig()
    for (let i = 0; i < 5; i++) r.pool.deposit({ user: USER, assetId: 1, amount: 1_000_000_000n })
    const cfg = await r.client.config()
    expect(cfg.assets.map((a) => a.asset_id)).toEqual([1, 2])
    const acc = await r.client.account(USER)
    expect(acc.balances[0]!.earn_balance).toBe('5000000000')
    // Pages of 2: 2 + 2 + 1 (cursor null on the short page).
    const pages: number[] = []
    const all = await walk(async (before) => {
      const p = await r.client.depositsPage(USER, { beforeId: before, limit: 2 })
      pages.push(p.items.length)
      return p
    })
    expect(all).toHaveLength(5)
    expect(pages).toEqual([2, 2, 1])
    expect(await r.client.deposits(USER)).toHaveLength(5)
  })

  it('retries 131002 and 131006, never reading them as empty; 201005 waits for the next second', async () => {
    const r = rig()
    r.pool.deposit({ user: USER, assetId: 1, amount: 1_000_000_000n })
    r.faults.push(
      () => ({ code: 131002, message: 'backend unavailable' }),
      () => ({ code: 131006, message: 'upstream timeout' }),
      () => ({ code: 201005, message: 'rate limit exceeded' }),
    )
    r.clock.t = 1_800_000_000_250
    const before = r.clock.t
    const acc = await r.client.account(USER)
    expect(acc.balances).toHaveLength(1)
    expect(r.sent).toHaveLength(4)
    expect(r.clock.t).toBeGreaterThan(before + 750)
  })

  it('refuses a limit above 200 locally and reports 131004 messages as EarnInvalid', async () => {
    const r = rig()
    await expect(r.client.depositsPage(USER, { limit: 201 })).rejects.toMatchObject({ code: 'InvalidQuery' })
    await expect(r.client.account('0x1234')).rejects.toMatchObject({ code: 'EarnInvalid' })
    expect(await r.client.withdrawal(USER, `withdraw:${USER.toLowerCase()}:99`)).toBeNull()
  })

  it('a malformed success body is a typed error, never a silent undefined', async () => {
    const r = rig()
    r.faults.push(() => ({ code: 0, message: 'success', data: { nonsense: true } }) as never)
    await expect(r.client.config()).rejects.toMatchObject({ code: 'EarnMalformedResponse' })
  })
})

describe('EarnClient writes', () => {
  it('creates a scheduled withdrawal journaled by operation id', async () => {
    const r = rig()
    r.pool.deposit({ user: USER, assetId: 1, amount: 5_000_000_000n })
    const res = await r.client.createWithdrawal({
      user: USER,
      signer: ref,
      assetId: 1,
      amount: 2_000_000_000n,
      type: 'scheduled',
      summary: 'withdraw 20 USDC',
    })
    expect(res.operationId).toBe(`withdraw:${USER.toLowerCase()}:0`)
    expect(res.submission).toMatchObject({
      channel: 'earn',
      state: 'accepted',
      finalStatus: 'queued',
      key: res.operationId,
      businessNonce: '0',
    })
    expect((await r.client.account(USER)).balances[0]!.in_queue_balance).toBe('2000000000')
  })

  it('a create whose answer was lost after it executed is recognised, not created twice', async () => {
    const r = rig()
    r.pool.deposit({ user: USER, assetId: 1, amount: 5_000_000_000n })
    // The handler executes the write; the answer is lost on the way back.
    r.faults.push(
      () => null,
      () => null,
      () => 'lost-after',
    )
    const res = await r.client.createWithdrawal({
      user: USER,
      signer: ref,
      assetId: 1,
      amount: 1_000_000_000n,
      type: 'instant',
      summary: 'w',
    })
    expect(res.submission).toMatchObject({ state: 'reconciled', finalStatus: 'created' })
    expect(r.pool.groundTruth().withdrawals).toHaveLength(1)
    expect(r.signatures).toBe(1)
  })

  it('claims with byte-identical resends and never signs a second claim', async () => {
    const r = rig()
    r.pool.deposit({ user: USER, assetId: 1, amount: 5_000_000_000n })
    const created = await r.client.createWithdrawal({
      user: USER,
      signer: ref,
      assetId: 1,
      amount: 1_000_000_000n,
      type: 'scheduled',
      summary: 'w',
    })
    r.clock.t += 61_000
    // withdrawal and config reads ok, then the claim write answers 131006 (not executed); the resend goes through.
    r.faults.push(
      () => null,
      () => null,
      () => ({ code: 131006, message: 'upstream timeout' }),
    )
    const claim = await r.client.claimWithdrawal({ user: USER, signer: ref, operationId: created.operationId, summary: 'claim' })
    expect(claim.submission.state === 'accepted' || claim.submission.state === 'reconciled').toBe(true)
    const claimBodies = r.sent.filter((b) => b.includes('"claimWithdrawal"'))
    expect(claimBodies.length).toBeGreaterThanOrEqual(2)
    expect(new Set(claimBodies).size).toBe(1)
    expect(r.signatures).toBe(2) // one create, one claim
    // Asking again returns the journaled claim: no new signature.
    const again = await r.client.claimWithdrawal({ user: USER, signer: ref, operationId: created.operationId, summary: 'claim' })
    expect(again.submission.id).toBe(claim.submission.id)
    expect(r.signatures).toBe(2)
  })

  it('an early claim is refused locally without signing; cancel works before claimable', async () => {
    const r = rig()
    r.pool.deposit({ user: USER, assetId: 1, amount: 5_000_000_000n })
    const created = await r.client.createWithdrawal({
      user: USER,
      signer: ref,
      assetId: 1,
      amount: 1_000_000_000n,
      type: 'scheduled',
      summary: 'w',
    })
    await expect(
      r.client.claimWithdrawal({ user: USER, signer: ref, operationId: created.operationId, summary: 'early' }),
    ).rejects.toMatchObject({ code: 'WithdrawalNotClaimable' })
    expect(r.signatures).toBe(1)
    expect(r.sent.filter((b) => b.includes('"claimWithdrawal"'))).toHaveLength(0)
    const c = await r.client.cancelWithdrawal({ user: USER, signer: ref, operationId: created.operationId, summary: 'cancel' })
    expect(c.submission).toMatchObject({ state: 'accepted', finalStatus: 'cancelled' })
    await expect(
      r.client.cancelWithdrawal({ user: USER, signer: ref, operationId: 'withdraw:0xabc:1', summary: 'x' }),
    ).rejects.toMatchObject({ code: 'InvalidOperationId' })
  })

  it('a claim is journaled before it is sent and signed with a deadline that leaves room for outages (7 days)', async () => {
    const r = rig()
    r.pool.deposit({ user: USER, assetId: 1, amount: 5_000_000_000n })
    const created = await r.client.createWithdrawal({
      user: USER,
      signer: ref,
      assetId: 1,
      amount: 1_000_000_000n,
      type: 'scheduled',
      summary: 'w',
    })
    r.clock.t += 61_000
    r.faults.push(
      () => null,
      () => null,
      (body) => {
        const e = j.list({ channel: 'earn', actionType: 'claimWithdrawal' })[0]!
        expect(e.body).toBe(body)
        expect(e.state).toBe('sent')
        return null
      },
    )
    const signedAt = r.clock.t
    const claim = await r.client.claimWithdrawal({ user: USER, signer: ref, operationId: created.operationId, summary: 'claim' })
    expect(JSON.parse(claim.submission.body).deadline_unix_ms).toBe(signedAt + 7 * 24 * 3600_000)
  })

  it('after the claim deadline passed with the outcome unknown, asking again never signs a second claim: it reads the withdrawal', async () => {
    const r = rig({ claimDeadlineMs: 120_000, maxAttempts: 2 })
    r.pool.deposit({ user: USER, assetId: 1, amount: 5_000_000_000n })
    const created = await r.client.createWithdrawal({
      user: USER,
      signer: ref,
      assetId: 1,
      amount: 1_000_000_000n,
      type: 'scheduled',
      summary: 'w',
    })
    r.clock.t += 61_000
    const timeout = () => ({ code: 131006, message: 'upstream timeout' })
    // pre-check read, config, claim -> 131006, read-back, claim -> 131006, final read-back
    r.faults.push(
      () => null,
      () => null,
      timeout,
      () => null,
      timeout,
      () => null,
    )
    await expect(
      r.client.claimWithdrawal({ user: USER, signer: ref, operationId: created.operationId, summary: 'claim' }),
    ).rejects.toMatchObject({ code: 'EarnOutcomeUnknown' })
    expect(r.signatures).toBe(2)
    r.clock.t += 200_000 // past the claim's deadline
    await expect(
      r.client.claimWithdrawal({ user: USER, signer: ref, operationId: created.operationId, summary: 'claim again' }),
    ).rejects.toMatchObject({
      code: 'EarnClaimExpired',
      details: expect.objectContaining({ withdrawalStatus: 'queued' }),
    })
    expect(r.signatures).toBe(2)
    expect(new Set(r.sent.filter((b) => b.includes('"claimWithdrawal"'))).size).toBe(1)
  })

  it('a claim that executed with its answer lost is recognised after its deadline; a failing read-back ends unknown, not EarnUnavailable', async () => {
    const r = rig({ claimDeadlineMs: 120_000, maxAttempts: 2 })
    r.pool.deposit({ user: USER, assetId: 1, amount: 5_000_000_000n })
    const created = await r.client.createWithdrawal({
      user: USER,
      signer: ref,
      assetId: 1,
      amount: 1_000_000_000n,
      type: 'scheduled',
      summary: 'w',
    })
    r.clock.t += 61_000
    // Reads of the withdrawal fail; a resent claim is refused as not claimable (it already ran).
    const readDown = (body: string) =>
      body.includes('"type":"withdrawal"')
        ? { code: 131002, message: 'backend unavailable' }
        : body.includes('"claimWithdrawal"')
          ? { code: 131004, message: 'withdrawal is not claimable' }
          : null
    r.faults.push(
      () => null,
      () => null,
      () => 'lost-after',
      ...Array.from({ length: 40 }, () => readDown),
    )
    const err = await r.client
      .claimWithdrawal({ user: USER, signer: ref, operationId: created.operationId, summary: 'claim' })
      .catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'EarnOutcomeUnknown' })
    const entry = j.list({ channel: 'earn', actionType: 'claimWithdrawal' })[0]!
    expect(entry.state).toBe('unknown')
    r.faults.length = 0
    r.clock.t += 200_000
    const again = await r.client.claimWithdrawal({ user: USER, signer: ref, operationId: created.operationId, summary: 'again' })
    expect(again.record?.claimed_at_unix_ms).not.toBeNull()
    expect(r.signatures).toBe(2)
    expect(await r.client.reconcileEntry(j.get(entry.id)!)).toBe(true)
    expect(j.get(entry.id)).toMatchObject({ state: 'reconciled' })
  })

  it('refuses a new create while an earlier one is unresolved', async () => {
    const r = rig({ maxAttempts: 1 })
    r.pool.deposit({ user: USER, assetId: 1, amount: 5_000_000_000n })
    r.faults.push(
      () => null,
      () => null,
      () => ({ code: 131006, message: 'upstream timeout' }),
      () => ({ code: 131002, message: 'x' }),
      () => ({ code: 131002, message: 'x' }),
      () => ({ code: 131002, message: 'x' }),
      () => ({ code: 131002, message: 'x' }),
      () => ({ code: 131002, message: 'x' }),
      () => ({ code: 131002, message: 'x' }),
      () => ({ code: 131002, message: 'x' }),
      () => ({ code: 131002, message: 'x' }),
    )
    await expect(
      r.client.createWithdrawal({ user: USER, signer: ref, assetId: 1, amount: 1_000_000_000n, type: 'scheduled', summary: 'w' }),
    ).rejects.toMatchObject({ code: 'EarnOutcomeUnknown' })
    r.faults.length = 0
    await expect(
      r.client.createWithdrawal({ user: USER, signer: ref, assetId: 1, amount: 1_000_000_000n, type: 'scheduled', summary: 'w2' }),
    ).rejects.toMatchObject({ code: 'EarnWriteInFlight' })
  })

  it('an outage longer than the retry budget leaves the write unknown; the reconciler finishes it', async () => {
    const r = rig({ maxAttempts: 2 })
    r.pool.deposit({ user: USER, assetId: 1, amount: 5_000_000_000n })
    r.faults.push(
      () => null,
      () => null,
      () => 'lost-after', // executes, answer lost
      () => ({ code: 131002, message: 'backend unavailable' }), // observe read fails (retried)
    )
    const res = await r.client
      .createWithdrawal({ user: USER, signer: ref, assetId: 1, amount: 1_000_000_000n, type: 'scheduled', summary: 'w' })
      .catch((e: unknown) => e)
    // Either the read-back already saw it, or it is unknown and reconciles now.
    const entry = j.list({ channel: 'earn' })[0]!
    if (entry.state === 'unknown') {
      expect(res).toMatchObject({ code: 'EarnOutcomeUnknown' })
      expect(await r.client.reconcileEntry(entry)).toBe(true)
    }
    expect(j.get(entry.id)).toMatchObject({ finalStatus: 'queued' })
    expect(await r.client.withdrawals(USER)).toHaveLength(1)
  })
})

describe('payout states that do not resolve on their own', () => {
  it('manual_review and a non-final record with a failure_code get advice; terminal records do not', () => {
    expect(payoutAdvice({ status: 'manual_review', failure_code: 'PAYOUT_FAILED' })).toMatch(/will not resolve on its own/)
    expect(payoutAdvice({ status: 'transferring', failure_code: 'RPC', failure_message: 'nonce too low' })).toMatch(
      /RPC: nonce too low.*transferring/,
    )
    expect(payoutAdvice({ status: 'transferring' })).toBeNull()
    expect(payoutAdvice({ status: 'claimed', failure_code: 'OLD' })).toBeNull()
  })
})
