/**
 * Issue 32, keep and recover: B's desk is lost. The offline recovery share plus A's own share
 * (T-1 members) recover the key on A's desk, under the admins' re-split entry naming A to seal it;
 * it is re-split to A and C (a new member) and the old shares retire. The account keeps its
 * address: a transfer then executes once with C's release; with C down, B's old share is no use.
 * Real PostgreSQL, the sandbox's ground truth.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TeamCustodySplitView, TeamCustodyView, TeamProposalView, WriteOutcome } from '../../../contract/types'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { startDeskOnSharedSandbox, type SharedSandboxDesk } from '../../../testing/team-desks'

const HELD = devOwner(0).address.toLowerCase()
const TO = devOwner(2).address.toLowerCase()
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code: string; message: string }) => e,
  )

describe('team custody: recovery from the offline share and a re-split (real PostgreSQL, sandbox ground truth)', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let c: SharedSandboxDesk
  let ann = ''
  let bob = ''
  let cat = ''
  const dir = mkdtempSync(join(tmpdir(), 'desk-custody-rec-'))
  const truth = () => sandbox.trading.groundTruth()

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    a = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0, releaseWaitMs: 3000 } })
    b = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0 } })
    c = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0 } })
    for (const d of [a, b, c]) await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await a.call('accounts.importSandboxKeys')
    a.autoConfirm()
    const cfg = { connectionString: db.connectionString, password: db.password, passphrase: TEST_PASSPHRASE }
    for (const d of [a, b, c]) await d.call('team.configure', cfg)
    await a.call('team.init', { teamName: 'Treasury ops', name: 'Ann', passphrase: TEST_PASSPHRASE })
    ann = (await a.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    bob = (await b.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    cat = (await c.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    await a.call('team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
    await a.call('team.members.add', { address: cat, name: 'Cat', roles: ['approver'] })
    await a.call('team.policy.set', {
      rules: [
        { id: 'transfer-4eyes', kinds: ['transfer'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
  })

  afterAll(async () => {
    for (const d of [a, b, c]) await d?.close().catch(() => {})
    await sandbox?.stop()
    await db?.stop()
  })

  it("B's desk lost: the recovery share and A's share re-split the key to A and C; the address stays; a transfer executes once with C's release", async () => {
    const file1 = join(dir, 'recovery-1.json')
    await expect
      .poll(
        async () =>
          (await failure(a.call('team.custody.split', { account: HELD, holders: [ann, bob], threshold: 2, recoveryFile: file1 })))?.code ??
          'ok',
        {
          timeout: 5000,
        },
      )
      .toBe('ok')
    await b.close() // lost
    const file2 = join(dir, 'recovery-2.json')
    const r = await a.call<TeamCustodySplitView>('team.custody.resplit', {
      account: HELD,
      holders: [ann, cat],
      threshold: 2,
      recoveryFile: file2,
      recoveryShareFile: file1,
    })
    expect(r).toMatchObject({ account: HELD, version: 2, threshold: 2, applied: true })
    expect([...r.holders].sort()).toEqual([ann, cat].sort())
    const status = await c.call<TeamCustodyView[]>('team.custody.status')
    expect(status[0]).toMatchObject({ account: HELD, version: 2 })

    const out = await a.call<WriteOutcome>('transfer.submit', { from: HELD, to: TO, assetId: 1, amount: '2' })
    const id = out.proposalId!
    await expect
      .poll(async () => (await c.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).some((p) => p.id === id), {
        timeout: 5000,
      })
      .toBe(true)
    await c.call('team.approve', { id })
    await a.call('team.execute', { id })
    expect(truth().filter((x) => x.cloid === out.submission.cloid)).toHaveLength(1)
  })

  it('the old version retired: with C down, nothing is signed (version 1 shares are no use)', async () => {
    const out = await a.call<WriteOutcome>('transfer.submit', { from: HELD, to: TO, assetId: 1, amount: '3' })
    const id = out.proposalId!
    await expect
      .poll(async () => (await c.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).some((p) => p.id === id), {
        timeout: 5000,
      })
      .toBe(true)
    await c.call('team.approve', { id })
    await c.close()
    expect(await failure(a.call('team.execute', { id }))).toMatchObject({
      code: expect.stringMatching(/CustodySharesMissing|WriteNotSent/),
    })
    expect(truth().filter((x) => x.cloid === out.submission.cloid)).toHaveLength(0)
  })
})
