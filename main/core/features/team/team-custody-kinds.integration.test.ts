/**
 * Issue 32: every owner-key write kind works on a team-held account. Two desks on one PostgreSQL
 * and one sandbox; A splits the credit account (owner 3) and a balance account with earn (owner 1),
 * 2 of 2 members plus the offline share, so neither vault keeps either key. The team's policy
 * allows these writes outright, so each is recorded in the chain first and B's desk co-signs it
 * (its co-signer rule on): settle, repay, API key revoke and approve, earn create, cancel and claim
 * each land exactly once, judged by the sandbox's ground truth (trading) and the pool's state (earn).
 * With B's co-signer rule off, nothing is signed, and both refusals are named in the chain.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { EarnWithdrawalView, TeamCustodySplitView, WriteOutcome } from '../../../contract/types'
import { TeamStore, verifyStore } from '../../team'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { startDeskOnSharedSandbox, type SharedSandboxDesk } from '../../../testing/team-desks'

const CREDIT = devOwner(3).address.toLowerCase()
const CASH = devOwner(1).address.toLowerCase()
const OTHER = devOwner(0).address.toLowerCase()

describe('team custody: every owner-key write kind on a team-held account (real PostgreSQL, sandbox ground truth)', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let ann = ''
  let bob = ''
  const dir = mkdtempSync(join(tmpdir(), 'desk-custody-kinds-'))
  const landed = (cloid: string) => sandbox.trading.groundTruth().filter((x) => x.cloid === cloid)
  const poolWithdrawal = (user: string, operationId: string) =>
    sandbox.earn.withdrawalsPage(user, { limit: 200 }).items.find((w) => w.operation_id === operationId)

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    a = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0, releaseWaitMs: 4000 } })
    b = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0 } })
    for (const d of [a, b]) await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await a.call('accounts.importSandboxKeys')
    a.autoConfirm()
    const cfg = { connectionString: db.connectionString, password: db.password, passphrase: TEST_PASSPHRASE }
    for (const d of [a, b]) await d.call('team.configure', cfg)
    await a.call('team.init', { teamName: 'Treasury ops', name: 'Ann', passphrase: TEST_PASSPHRASE })
    ann = (await a.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    bob = (await b.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    await a.call('team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
    await a.call('team.policy.set', { rules: [{ id: 'rest', then: { effect: 'allow' } }] })
    for (const account of [CREDIT, CASH]) {
      const r = await a.call<TeamCustodySplitView>('team.custody.split', {
        account,
        holders: [ann, bob],
        threshold: 2,
        recoveryFile: join(dir, `${account}.json`),
      })
      expect(r).toMatchObject({ account, threshold: 2, applied: true })
    }
    // Neither key is in A's vault any more.
    const keys = (await a.call<{ accounts: { address: string; teamHeld?: boolean }[] }>('vault.keys')).accounts
    for (const account of [CREDIT, CASH]) expect(keys.find((k) => k.address.toLowerCase() === account)).toMatchObject({ teamHeld: true })
    await b.call('team.custody.cosign', { on: true })
  }, 120_000)

  afterAll(async () => {
    await a?.close()
    await b?.close().catch(() => {})
    await sandbox?.stop()
    await db?.stop()
  })

  it('settle (signed by the credit account) lands once', async () => {
    const out = await a.call<WriteOutcome>('settle.submit', { creditAccount: CREDIT, cashAccount: OTHER, assetId: 3, amount: '0.01' })
    expect(out.submission.state).toBe('accepted')
    expect(landed(out.submission.cloid)).toHaveLength(1)
  })

  it('repay (signed by the paying balance account) lands once', async () => {
    const out = await a.call<WriteOutcome>('repay.submit', { cashAccount: CASH, creditAccount: CREDIT, assetId: 1, amount: '10' })
    expect(out.submission.state).toBe('accepted')
    expect(landed(out.submission.cloid)).toHaveLength(1)
  })

  it('an API key revoke and a new approval land (the slot empties, then holds the new key)', async () => {
    const slotAgent = async (slot: number) =>
      (await a.call<{ slot: number; agent: string | null }[]>('agents.list', { owner: CASH })).find((s) => s.slot === slot)?.agent ?? null
    expect(await slotAgent(1)).not.toBeNull() // the scenario's API key
    await a.call('agents.revoke', { owner: CASH, slot: 1 })
    await expect.poll(() => slotAgent(1), { timeout: 10_000 }).toBeNull()
    await a.call('agents.approve', { owner: CASH, slot: 1 })
    await expect.poll(() => slotAgent(1), { timeout: 10_000 }).toMatch(/^0x[0-9a-f]{40}$/)
  })

  it('earn claim, create and cancel land on the pool', async () => {
    const list = await a.call<{ items: EarnWithdrawalView[] }>('earn.withdrawals', { account: CASH, limit: 50 })
    const claimable = list.items.find((w) => w.canClaim)!
    expect(claimable).toBeDefined()
    await a.call('earn.claim', { account: CASH, operationId: claimable.operationId })
    await expect.poll(() => poolWithdrawal(CASH, claimable.operationId)?.status, { timeout: 10_000 }).not.toBe('queued')

    const created = await a.call<EarnWithdrawalView>('earn.create', { account: CASH, assetId: 2, amount: '25', type: 'scheduled' })
    expect(poolWithdrawal(CASH, created.operationId)).toMatchObject({ status: 'queued', gross_amount: '2500000000' })
    await a.call('earn.cancel', { account: CASH, operationId: created.operationId })
    expect(poolWithdrawal(CASH, created.operationId)?.status).toBe('cancelled')
  })

  it("with B's co-signer rule off, a write the policy allows outright is not signed: nothing lands", async () => {
    await b.call('team.custody.cosign', { on: false })
    const before = sandbox.trading.groundTruth().length
    const e = await a.call('repay.submit', { cashAccount: CASH, creditAccount: CREDIT, assetId: 1, amount: '5' }).then(
      () => null,
      (x: { code: string }) => x,
    )
    expect(e?.code).toMatch(/CustodySharesMissing|WriteNotSent|SigningFailed/)
    expect(sandbox.trading.groundTruth()).toHaveLength(before)
    // Both refusals are named in the chain, for every desk: B's (no release) and A's (nothing signed).
    const store = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
    try {
      const { state } = await verifyStore(store)
      const refusals = state.custodyRefusals.filter((r) => r.account === CASH)
      expect(refusals).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ by: bob, side: 'release', reason: expect.stringMatching(/co-signer rule/) }),
          expect.objectContaining({ by: ann, side: 'sign', code: 'CustodySharesMissing' }),
        ]),
      )
    } finally {
      await store.close()
    }
  })
})
