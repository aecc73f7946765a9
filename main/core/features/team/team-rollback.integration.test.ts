/**
 * Issue 30.1: an executed proposal must never execute again. A desk executes an approved
 * withdrawal (one transaction on the sandbox); then the chain's last two rows (its `signed` and
 * `outcome` entries) are deleted in the database, triggers disabled, as anyone holding the store's
 * role could. The desk that verified them keeps its head (sealed in its vault) and refuses the cut
 * chain, running or restarted, and `team verify` says so; a desk that never saw the tail (closed
 * meanwhile) asks the exchange by cloid before signing, finds the withdrawal, records its outcome
 * and signs nothing. Judged by the sandbox's ground truth: one transaction under the cloid, ever.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TeamProposalDetail, TeamStatusView, TeamVerifyView, WriteOutcome } from '../../../contract/types'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import {
  COLD_DEST,
  shortCoolingOff,
  startDeskOnSharedSandbox,
  startKeyedAndApprover,
  type SharedSandboxDesk,
} from '../../../testing/team-desks'

const WITHDRAW = { account: devOwner(0).address.toLowerCase(), assetId: 1, amount: '7', dstChainId: '1', dstAddress: COLD_DEST }

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code: string; message: string; details?: Record<string, unknown> }) => e,
  )

describe('an executed proposal never executes again (real PostgreSQL, sandbox ground truth)', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let c: SharedSandboxDesk
  let closePair: () => Promise<void>
  const others: SharedSandboxDesk[] = []
  const truth = () => sandbox.trading.groundTruth()
  const cfg = () => ({ connectionString: db.connectionString, password: db.password, passphrase: TEST_PASSPHRASE })

  async function asDba(sql: string): Promise<void> {
    const client = new pg.Client({ ...db.adminConfig, database: 'team' })
    await client.connect()
    try {
      await client.query('ALTER TABLE team_log DISABLE TRIGGER team_log_no_change')
      await client.query(sql)
      await client.query('ALTER TABLE team_log ENABLE TRIGGER team_log_no_change')
    } finally {
      await client.end()
    }
  }

  /** The same data directory started again (a restart): a new core, the vault unlocked. */
  async function restart(d: SharedSandboxDesk): Promise<SharedSandboxDesk> {
    await d.core.close()
    const again = await startDeskOnSharedSandbox(sandbox, { dataDir: d.dataDir, team: { recoverEveryMs: 0 } })
    others.push(again)
    await again.call('vault.unlock', { passphrase: TEST_PASSPHRASE })
    again.autoConfirm()
    return again
  }

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    let bob: string
    ;({ a, b, bob, close: closePair } = await startKeyedAndApprover(sandbox, { a: { recoverEveryMs: 0 }, b: { recoverEveryMs: 0 } }))
    // C: a second desk holding the same account keys (as the three-desk trial had).
    c = await startDeskOnSharedSandbox(sandbox, { dataDir: mkdtempSync(join(tmpdir(), 'desk-team-c-')), team: { recoverEveryMs: 0 } })
    others.push(c)
    await c.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await c.call('accounts.importSandboxKeys')
    c.autoConfirm()
    shortCoolingOff(c, sandbox)
    await c.call('addresses.add', { label: 'cold', address: COLD_DEST, chainId: '1', passphrase: TEST_PASSPHRASE })
    for (const d of [a, b, c]) await d.call('team.configure', cfg())
    await a.call('team.init', { teamName: 'Treasury ops', name: 'Ann', passphrase: TEST_PASSPHRASE })
    const { address: carl } = await c.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })
    await a.call('team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
    await a.call('team.members.add', { address: carl, name: 'Carl', roles: ['trader'] })
    await a.call('team.policy.set', {
      rules: [
        { id: 'withdraw-4eyes', kinds: ['withdraw'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
    await new Promise((r) => setTimeout(r, 1600)) // C's address-book entry's cooling-off
  })

  afterAll(async () => {
    await closePair?.()
    for (const d of others) await d.core.close().catch(() => {})
    await sandbox?.stop()
    await db?.stop()
  })

  it('the tail of an executed proposal deleted: the desk that verified it refuses, running and restarted; another desk finds it on the exchange and signs nothing', async () => {
    // C sees the team as it is now, then is closed: it never verifies the proposal's tail.
    await expect.poll(async () => (await c.call<TeamStatusView>('team.status')).policyVersion, { timeout: 5000, interval: 50 }).toBe(1)
    const cKept = await c.call<TeamVerifyView>('team.verify')
    expect(cKept.ok).toBe(true)
    await c.core.close()

    const proposed = await a.call<WriteOutcome>('withdraw.submit', WITHDRAW)
    expect(proposed.submission.state).toBe('proposed')
    const id = proposed.proposalId!
    const cloid = proposed.submission.cloid
    await expect.poll(async () => (await b.call<{ id: string }[]>('team.proposals', { view: 'needsMe' })).length, { timeout: 5000 }).toBe(1)
    await b.call('team.approve', { id })
    const done = await a.call<WriteOutcome>('team.execute', { id })
    expect(done.proposalId).toBe(id)
    expect(truth().filter((x) => x.cloid === cloid)).toHaveLength(1)
    const before = await a.call<TeamVerifyView>('team.verify')
    expect(before).toMatchObject({ ok: true, keptSeq: before.headSeq, keptDigest: before.headDigest })
    const headSeq = BigInt(before.headSeq!)

    // The `signed` and `outcome` rows deleted by someone holding the store's role.
    await asDba(`DELETE FROM team_log WHERE seq >= ${headSeq - 1n}`)

    // A, running: its verify reports the cut chain (its kept head names where), and every team write is refused.
    const v = await a.call<TeamVerifyView>('team.verify')
    expect(v.ok).toBe(false)
    expect(v.headSeq).toBe((headSeq - 2n).toString())
    expect(v.keptSeq).toBe(headSeq.toString())
    expect(v.broken?.seq).toBe(headSeq.toString())
    expect(v.broken?.reason).toMatch(/rolled back or forked/)
    const running = await failure(a.call('team.execute', { id }))
    expect(running?.code).toMatch(/TeamChainRolledBack|TeamProposalRefused/)
    await expect(a.call('withdraw.submit', { ...WITHDRAW, amount: '3' })).rejects.toMatchObject({ code: 'TeamChainRolledBack' })
    expect(await a.call<TeamStatusView>('team.status')).toMatchObject({ state: 'tampered' })

    // A, restarted: the head is kept in its vault, so the cut chain is refused from its first read.
    const a2 = await restart(a)
    await expect.poll(async () => (await a2.call<TeamStatusView>('team.status')).state, { timeout: 5000, interval: 50 }).toBe('tampered')
    const v2 = await a2.call<TeamVerifyView>('team.verify')
    expect(v2).toMatchObject({ ok: false, keptSeq: headSeq.toString(), headSeq: (headSeq - 2n).toString() })
    const e2 = await failure(a2.call('team.execute', { id }))
    expect(e2?.code).toBe('TeamChainRolledBack')
    expect(e2?.details).toMatchObject({ keptSeq: headSeq.toString(), storeSeq: (headSeq - 2n).toString() })
    expect(truth().filter((x) => x.cloid === cloid)).toHaveLength(1)

    // C, restarted: it never verified the tail, so the cut chain is all it knows. Before signing it asks
    // the exchange by cloid: executed, so the outcome is recorded for every desk and nothing is signed.
    const c2 = await restart(c)
    await expect.poll(async () => (await c2.call<TeamStatusView>('team.status')).state, { timeout: 5000, interval: 50 }).toBe('live')
    const e3 = await failure(c2.call('team.execute', { id }))
    expect(e3).toMatchObject({ code: 'WriteBlocked', details: { code: 'TeamAlreadyExecuted' } })
    expect(e3!.message).toContain(`txStatusByCloid(${WITHDRAW.account}, ${cloid}): found`)
    expect(truth().filter((x) => x.cloid === cloid)).toHaveLength(1)
    const detail = await c2.call<TeamProposalDetail>('team.proposal', { id })
    expect(detail.status).toBe('final')
    expect(detail.outcomes).toHaveLength(1)
    expect(detail.outcomes[0]).toMatchObject({ state: 'reconciled' })
    expect(detail.outcomes[0]!.evidence).toMatch(/nothing was signed/)
    // Asked again, it is final on the chain: refused there, and still one transaction.
    expect((await failure(c2.call('team.execute', { id })))?.code).toMatch(/TeamAlreadySigned|TeamProposalRefused|WriteBlocked/)
    expect(truth().filter((x) => x.cloid === cloid)).toHaveLength(1)
  })
})
