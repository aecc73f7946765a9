/**
 * Issue 23 item 5 for earn writes: their stored bytes are the earn pool's request body, not a /trade
 * envelope. A desk dies between storing them and knowing their outcome; a keyless desk (C) finishes:
 * it re-sends exactly the stored bytes while their deadline holds (the earn API's own rule), or
 * settles them from the pool's record of the operation. Real PostgreSQL, one sandbox whose earn pool
 * is the ground truth; C holds no account key, so a second signature is impossible by construction.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { JournalRecordDetail, SubmissionView } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import { verifyStore, type Proposal, type TeamStore } from '../../team'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import type { SharedSandboxDesk } from '../../../testing/team-desks'
import { approveOn, seenOn, startTakeoverTeam, verifiedProposal, type TakeoverTeam } from '../../../testing/team-takeover'
import { TeamGate } from './team-gate'

const owner = (i: number) => devOwner(i).address.toLowerCase()
const LEASE_MS = 1500
const TAKEOVER_TIMER_MS = 250
const SLOW = 600_000

describe('team takeover of earn writes: the stored pool request re-sent or settled from the pool, never re-signed', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let team: TakeoverTeam
  let store: TeamStore
  let a: SharedSandboxDesk | null = null
  let b: SharedSandboxDesk
  let c: SharedSandboxDesk
  let cAddress = ''
  /** The pool's clock runs this far ahead of the desks' (the expired-deadline test moves it). */
  let poolSkewMs = 0
  const openA = () => team.a.open()
  async function killA(): Promise<void> {
    await team.a.kill()
    a = null
  }

  /** The pool's own record of a user's withdrawals (its ground truth, read in the sandbox). */
  const poolWithdrawals = (user: string) => sandbox.earn.withdrawalsPage(user, { limit: 200 }).items
  const activeSlot = (user: string, assetId: number) =>
    sandbox.earn.account(user).balances.find((x) => x.asset_id === assetId)?.active_withdraw_operation_id ?? ''

  const proposal = (id: string): Promise<Proposal> => verifiedProposal(store, id)
  /** A desk's journal entry for an earn operation id (journal.get takes /trade cloids only). */
  const journaled = async (d: SharedSandboxDesk, account: string, op: string) =>
    (
      await d.call<SubmissionView[]>('journal.query', {
        account,
        actionType: 'createWithdrawal',
      })
    ).filter((s) => s.cloid === op)

  /** An earn withdrawal proposed on A and approved on B; returns its proposal id and the request (to run it again). */
  async function approvedEarnWithdrawal(account: string, assetId: number, amount: string, type: 'instant' | 'scheduled' = 'instant') {
    const req = { account, assetId, amount, type }
    const err = (await a!.call('earn.create', req).then(
      () => null,
      (e: unknown) => e,
    )) as { code: string; details: { proposalId: string } } | null
    expect(err?.code).toBe('WriteProposed')
    const id = err!.details.proposalId
    await approveOn(b, a!, id)
    return { id, req }
  }

  /** Runs the approved write on A (run again from its screen); A "dies" right after its signed bytes are stored in the team store. */
  async function executeAndDieAfterStoring(req: object, after?: () => void): Promise<void> {
    const original = TeamGate.prototype.beforeSend
    const spy = vi.spyOn(TeamGate.prototype, 'beforeSend').mockImplementationOnce(async function (this: TeamGate, signed) {
      await original.call(this, signed)
      after?.()
      throw new DeskError('DeskKilled', 'the desk stopped right after storing the signed bytes')
    })
    await expect(a!.call('earn.create', req)).rejects.toMatchObject({
      code: 'WriteNotSent',
    })
    spy.mockRestore()
    await killA()
  }

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({
      port: 0,
      seed: true,
      rateLimits: false,
      botIntervalMs: 0,
      markStepBps: 0,
      earnPayoutStageMs: 50,
      now: () => Date.now() + poolSkewMs,
    })
    team = await startTakeoverTeam(sandbox, db, {
      dirPrefix: 'desk-team-earn-a-',
      a: { leaseMs: LEASE_MS, recoverEveryMs: SLOW },
      b: { recoverEveryMs: SLOW },
      c: { recoverEveryMs: TAKEOVER_TIMER_MS },
      rules: [
        {
          id: 'earn-4eyes',
          kinds: ['earn_request'],
          then: { effect: 'approve', count: 1, roles: ['approver'] },
        },
        { id: 'everything-else', then: { effect: 'allow' } },
      ],
    })
    a = team.a.desk!
    b = team.b
    c = team.c
    cAddress = team.cAddress
    store = team.store
  })

  afterAll(async () => {
    vi.restoreAllMocks()
    await team?.close()
    await sandbox?.stop()
    await db?.stop()
  })

  it('killed after storing the pool request, before sending: C re-sends the same bytes after the lease; one withdrawal, outcome on every desk', async () => {
    const user = owner(2)
    const { id, req } = await approvedEarnWithdrawal(user, 1, '12')
    const before = poolWithdrawals(user).length
    await executeAndDieAfterStoring(req)
    const p = await proposal(id)
    expect(p.signed).not.toBeNull()
    expect(p.outcomes).toEqual([])
    expect(poolWithdrawals(user)).toHaveLength(before) // nothing left: the bytes are only in the team store

    await expect
      .poll(async () => (await seenOn(c, id))?.outcome?.state, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe('accepted')
    const made = poolWithdrawals(user).filter((w) => w.operation_id === p.cloid)
    expect(made).toHaveLength(1)
    expect(made[0]).toMatchObject({
      gross_amount: '1200000000',
      withdraw_type: 'instant',
    })
    expect(poolWithdrawals(user)).toHaveLength(before + 1)
    const after = await proposal(id)
    expect(after.signed!.seq).toBe(p.signed!.seq) // one `signed` entry, ever
    expect(after.outcomes.map((o) => [o.by, o.state])).toEqual([[cAddress.toLowerCase(), 'accepted']])
    await expect
      .poll(async () => (await seenOn(b, id))?.status, {
        timeout: 2000,
        interval: 50,
      })
      .toBe('final')
    // C journaled exactly the stored bytes under the operation id, naming the proposal.
    const [entry] = await journaled(c, user, p.cloid)
    expect(entry!.summary).toContain(id)
    expect(entry!.proposalId).toBe(id)
    expect(entry!.state).toBe('accepted')
    expect(
      (
        await c.call<JournalRecordDetail>('journal.record', {
          id: Number(entry!.id),
        })
      ).body,
    ).toBe(p.signed!.body)
  })

  it('killed after sending, before the answer was recorded: C finds the operation in the pool and writes its outcome back; nothing is sent again', async () => {
    const user = owner(2)
    await expect.poll(() => activeSlot(user, 1), { timeout: 5000, interval: 50 }).toBe('') // the first payout finished
    a = await openA()
    const { id, req } = await approvedEarnWithdrawal(user, 1, '7')
    const spy = vi.spyOn(TeamGate.prototype, 'settled').mockImplementationOnce(async () => {
      throw new DeskError('DeskKilled', 'the desk stopped before recording the answer')
    })
    await a.call('earn.create', req)
    spy.mockRestore()
    await killA()
    const p = await proposal(id)
    expect(p.signed).not.toBeNull()
    expect(p.outcomes).toEqual([]) // ...but no desk knows
    expect(poolWithdrawals(user).filter((w) => w.operation_id === p.cloid)).toHaveLength(1) // the send went through

    await expect
      .poll(async () => (await seenOn(c, id))?.status, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe('final')
    const outcome = (await proposal(id)).outcomes
    expect(outcome).toHaveLength(1)
    expect(outcome[0]).toMatchObject({
      by: cAddress.toLowerCase(),
      state: 'reconciled',
    })
    expect(['created', 'authorizing', 'authorized', 'transferring', 'completed']).toContain(outcome[0]!.finalStatus)
    expect(poolWithdrawals(user).filter((w) => w.operation_id === p.cloid)).toHaveLength(1)
    expect(await journaled(c, user, p.cloid)).toEqual([]) // found first: C sent nothing
    await expect
      .poll(async () => (await seenOn(b, id))?.outcome?.state, {
        timeout: 2000,
        interval: 50,
      })
      .toBe('reconciled')
  })

  it('bytes stored, never sent, and their signed deadline passed before a desk took over: unresolved with the pool reads as evidence, never re-signed', async () => {
    const user = owner(1)
    a = await openA()
    const { id, req } = await approvedEarnWithdrawal(user, 2, '5', 'scheduled')
    const before = poolWithdrawals(user).length
    // The takeover desk may only find out once the pool refuses the bytes: its clock passes their deadline.
    await executeAndDieAfterStoring(req, () => (poolSkewMs = 11 * 60_000))
    try {
      await expect
        .poll(async () => (await seenOn(c, id))?.status, {
          timeout: 15_000,
          interval: 100,
        })
        .toBe('final')
    } finally {
      poolSkewMs = 0
    }
    const p = await proposal(id)
    expect(poolWithdrawals(user)).toHaveLength(before)
    expect(p.outcomes).toHaveLength(1)
    const [outcome] = p.outcomes
    expect(outcome).toMatchObject({
      by: cAddress.toLowerCase(),
      state: 'unresolved',
      code: 'EarnDeadlinePassed',
    })
    const evidence = JSON.parse(outcome!.evidence!) as { checks: string[] }
    const checks = evidence.checks.join('\n')
    expect(checks).toMatch(new RegExp(`withdrawal\\(${p.cloid}\\): not found`))
    expect(checks).toMatch(/re-sent the stored bytes: rejected, code EarnDeadlinePassed/)
    expect(checks).toMatch(/next_user_nonce \d+ \(stored bytes: user_nonce \d+\)/)
    // C re-sent exactly the stored bytes (refused by the pool), never a new signature.
    const [entry] = await journaled(c, user, p.cloid)
    expect(entry).toMatchObject({
      state: 'rejected',
      code: 'EarnDeadlinePassed',
    })
    expect(
      (
        await c.call<JournalRecordDetail>('journal.record', {
          id: Number(entry!.id),
        })
      ).body,
    ).toBe(p.signed!.body)
    await expect
      .poll(async () => (await seenOn(b, id))?.outcome?.state, {
        timeout: 2000,
        interval: 50,
      })
      .toBe('unresolved')
  })

  it("an approved earn request runs from the Approvals screen (team.execute) on the key's desk; once the pool's nonce moved it is refused typed, nothing signed, no new proposal", async () => {
    const user = owner(3)
    for (const assetId of [1, 2]) sandbox.earn.deposit({ user, assetId, amount: 100_00000000n })
    a = await openA()
    const { id } = await approvedEarnWithdrawal(user, 1, '10')
    // B approved; A holds the owner key and runs it from the proposal, nothing to type again.
    const detail = await b.call<{
      recomputed: { lines: string[] } | null
      channel: string | null
    }>('team.proposal', { id })
    expect(detail.channel).toBe('earn.create')
    // B's own preview, recomputed from the pool now, beside the initiator's: the same lines.
    expect(detail.recomputed?.lines).toEqual([
      'instant withdrawal of 10 USDC from the earn pool',
      'fee: 0.03 USDC (30 bps)',
      'you receive: 9.97 USDC',
    ])
    const out = await a.call<{
      submission: SubmissionView
      proposalId: string
    }>('team.execute', { id })
    const p = await proposal(id)
    expect(out.proposalId).toBe(id)
    expect(out.submission).toMatchObject({ cloid: p.cloid, state: 'accepted' })
    expect(poolWithdrawals(user).filter((w) => w.operation_id === p.cloid)).toHaveLength(1)
    await expect
      .poll(async () => (await seenOn(b, id))?.outcome?.state, {
        timeout: 3000,
        interval: 50,
      })
      .toBe('accepted')

    // Approved at the pool's next nonce N; then a withdrawal made elsewhere takes N.
    await expect.poll(() => activeSlot(user, 1), { timeout: 5000, interval: 50 }).toBe('')
    const second = await approvedEarnWithdrawal(user, 2, '10', 'scheduled')
    const stale = await proposal(second.id)
    const nonce = sandbox.earn.account(user).next_user_nonce
    expect(stale.cloid).toBe(`withdraw:${user}:${nonce}`)
    sandbox.earn.createWithdrawal({
      user,
      userNonce: nonce,
      type: 'scheduled',
      assetId: 1,
      gross: 1_00000000n,
      deadline: Date.now() + 60_000,
    })
    const headBefore = (await verifyStore(store)).state.head!.seq
    const refused = await a.call('team.execute', { id: second.id }).catch((e: unknown) => e)
    expect(refused).toMatchObject({ code: 'EarnNonceMoved' })
    expect((refused as Error).message).toMatch(/can no longer be sent as approved; nothing was signed/)
    // Nothing appended (no new proposal, no signed bytes) and only the withdrawal made elsewhere took that id.
    expect((await verifyStore(store)).state.head!.seq).toBe(headBefore)
    expect(
      poolWithdrawals(user)
        .filter((w) => w.operation_id === stale.cloid)
        .map((w) => w.asset_id),
    ).toEqual([1])
  })
})
