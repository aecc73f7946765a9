/**
 * Issue 23 item 5, the faults: a desk dies between storing a proposal's signed bytes and knowing
 * their outcome, and another desk finishes the job. Real PostgreSQL, one sandbox exchange whose
 * ground truth says what executed. The takeover desk (C) holds no account key at all: it can only
 * re-send the stored bytes, so a second signature is impossible by construction, and the sandbox's
 * record shows exactly one transaction, with exactly the stored nonce.
 *
 * The "kill" is the desk object dropped at the exact step: the write pipeline's beforeSend stored the
 * bytes and the desk then stops (a) or the send went through and the answer never reached the team
 * store (b); the desk is then closed without running anything else.
 */
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { JournalRecordDetail, SubmissionView, TeamStatusView, WriteOutcome } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { Proposal, TeamStore } from '../../team'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { COLD_DEST, startDeskOnSharedSandbox, type SharedSandboxDesk } from '../../../testing/team-desks'
import { approveOn, seenOn, startTakeoverTeam, verifiedProposal, type TakeoverTeam } from '../../../testing/team-takeover'
import { TeamGate } from './team-gate'

const owner = (i: number) => devOwner(i).address.toLowerCase()
const WITHDRAW = {
  account: owner(0),
  assetId: 1,
  amount: '2',
  dstChainId: '1',
  dstAddress: COLD_DEST,
}
/** The initiating desk's execution lease: short, so a takeover is due within the test. */
const LEASE_MS = 1500
/** Takeover desks check for expired leases this often (pushes trigger a pass too). */
const TAKEOVER_TIMER_MS = 250
/**
 * B approves and watches; it never takes over (no recovery passes, not even on a push): in (d) only
 * A is left to take over, and B, woken by A's lease claim, could otherwise win the race under load.
 */
const B_NEVER_TAKES_OVER = 0
/** A's proposals expire this long after they are made (the expiry test waits for it). */
const TTL_MS = 15_000

describe('team takeover: a desk dies after signing, another desk finishes with the same bytes', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let team: TakeoverTeam
  let store: TeamStore
  let a: SharedSandboxDesk | null = null
  let b: SharedSandboxDesk
  let c: SharedSandboxDesk
  let cAddress = ''
  const truth = () => sandbox.trading.groundTruth()
  /** The exchange's clock runs this far ahead of the desks' (the expired-envelope test moves it). */
  let exchangeSkewMs = 0
  /** An unapproved proposal made first: nobody acts on it; some desk must record its expiry. */
  let forgotten = ''
  const extra: SharedSandboxDesk[] = []

  /** Desk A (Ann: keys for the accounts, admin and trader), on its own data directory, reopened after each "kill". */
  const openA = () => team.a.open()
  async function killA(): Promise<void> {
    await team.a.kill()
    a = null
  }
  const proposal = (id: string): Promise<Proposal> => verifiedProposal(store, id)

  /** A withdrawal proposed on A, approved on B: returns its id and cloid. */
  async function approvedWithdrawal(amount: string): Promise<{ id: string; cloid: string }> {
    const out = await a!.call<WriteOutcome>('withdraw.submit', {
      ...WITHDRAW,
      amount,
    })
    expect(out.submission.state).toBe('proposed')
    const id = out.proposalId!
    await approveOn(b, a!, id)
    return { id, cloid: out.submission.cloid }
  }

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({
      port: 0,
      seed: true,
      rateLimits: false,
      botIntervalMs: 0,
      markStepBps: 0,
      now: () => Date.now() + exchangeSkewMs,
    })
    team = await startTakeoverTeam(sandbox, db, {
      dirPrefix: 'desk-team-a-',
      a: { leaseMs: LEASE_MS, recoverEveryMs: 1000, proposalTtlMs: TTL_MS },
      b: { recoverEveryMs: B_NEVER_TAKES_OVER },
      c: { recoverEveryMs: TAKEOVER_TIMER_MS },
      coldAddress: true,
      rules: [
        {
          id: 'withdraw-4eyes',
          kinds: ['withdraw'],
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
    const never = await a.call<WriteOutcome>('withdraw.submit', {
      ...WITHDRAW,
      amount: '5',
    })
    expect(never.submission.state).toBe('proposed')
    forgotten = never.proposalId!
  })

  afterAll(async () => {
    vi.restoreAllMocks()
    await team?.close()
    for (const d of extra) await d.close()
    await sandbox?.stop()
    await db?.stop()
  })

  it('(a) killed after storing the signed bytes, before sending: C takes over after the lease; exactly one transaction, outcome on every desk', async () => {
    const { id, cloid } = await approvedWithdrawal('2')
    const original = TeamGate.prototype.beforeSend
    const spy = vi.spyOn(TeamGate.prototype, 'beforeSend').mockImplementationOnce(async function (this: TeamGate, signed) {
      await original.call(this, signed)
      throw new DeskError('DeskKilled', 'the desk stopped right after storing the signed bytes')
    })
    const before = truth().length
    await expect(a!.call('team.execute', { id })).rejects.toMatchObject({
      code: 'WriteNotSent',
    })
    spy.mockRestore()
    await killA()
    const p = await proposal(id)
    expect(p.signed).not.toBeNull()
    expect(p.outcomes).toEqual([])
    expect(truth()).toHaveLength(before) // nothing left: the bytes are only in the team store

    await expect
      .poll(async () => (await seenOn(c, id))?.outcome?.state, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe('accepted')
    const txs = truth().filter((x) => x.cloid === cloid)
    expect(txs).toHaveLength(1)
    expect(txs[0]!.nonce).toBe(p.signed!.nonce) // exactly the stored bytes, not a new signature
    expect(truth()).toHaveLength(before + 1)
    const after = await proposal(id)
    expect(after.signed!.seq).toBe(p.signed!.seq) // one `signed` entry, ever
    expect(after.outcomes.map((o) => [o.by, o.state])).toEqual([[cAddress.toLowerCase(), 'accepted']])
    await expect
      .poll(async () => (await seenOn(b, id))?.status, {
        timeout: 2000,
        interval: 50,
      })
      .toBe('final')

    // C journaled the re-sent bytes locally, under the cloid, naming the proposal.
    const entry = await c.call<SubmissionView>('journal.get', { cloid })
    expect(entry.summary).toContain(id)
    expect(entry.state).toBe('accepted')
    const record = await c.call<JournalRecordDetail>('journal.record', {
      id: Number(entry.id),
    })
    expect(record.body).toBe(p.signed!.body)

    // Desk A restarts on the same data directory and sees the outcome; nothing is sent again.
    a = await openA()
    await expect
      .poll(async () => (await seenOn(a!, id))?.outcome?.state, {
        timeout: 5000,
        interval: 100,
      })
      .toBe('accepted')
    expect(truth().filter((x) => x.cloid === cloid)).toHaveLength(1)
  })

  it('(b) killed after sending, before the answer was recorded: the re-send is refused, the cloid is found, the final outcome is written back', async () => {
    a ??= await openA()
    const { id, cloid } = await approvedWithdrawal('3')
    const spy = vi.spyOn(TeamGate.prototype, 'settled').mockImplementationOnce(async () => {
      throw new DeskError('DeskKilled', 'the desk stopped before recording the answer')
    })
    const before = truth().length
    await a.call<WriteOutcome>('team.execute', { id }).catch(() => undefined)
    spy.mockRestore()
    await killA()
    expect(truth().filter((x) => x.cloid === cloid)).toHaveLength(1) // the send went through
    const p = await proposal(id)
    expect(p.signed).not.toBeNull()
    expect(p.outcomes).toEqual([]) // ...but no desk knows

    await expect
      .poll(async () => (await seenOn(c, id))?.status, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe('final')
    const view = (await seenOn(c, id))!
    expect(view.outcome).toMatchObject({
      state: 'reconciled',
      finalStatus: 'success',
    })
    const txs = truth().filter((x) => x.cloid === cloid)
    expect(txs).toHaveLength(1)
    expect(txs[0]!.nonce).toBe(p.signed!.nonce)
    expect(truth()).toHaveLength(before + 1)
    // C's journal: the same bytes, refused as a duplicate, then settled by cloid.
    const entry = await c.call<SubmissionView>('journal.get', { cloid })
    expect(entry).toMatchObject({
      state: 'reconciled',
      finalStatus: 'success',
    })
    expect(
      (
        await c.call<JournalRecordDetail>('journal.record', {
          id: Number(entry.id),
        })
      ).body,
    ).toBe(p.signed!.body)
    await expect
      .poll(async () => (await seenOn(b, id))?.outcome?.state, {
        timeout: 2000,
        interval: 50,
      })
      .toBe('reconciled')
  })

  it('the database stops mid-execution: before the bytes are stored nothing is sent; after, the send completes once, desks say unreachable and refuse team writes, and the outcome is written back when it returns', async () => {
    a ??= await openA()
    const original = TeamGate.prototype.beforeSend
    const status = (d: SharedSandboxDesk) => d.call<TeamStatusView>('team.status').then((s) => s.state)
    const live = async () => {
      for (const d of [a!, b, c]) await expect.poll(() => status(d), { timeout: 10_000, interval: 100 }).toBe('live')
    }

    // 1. The database stops inside the execution, before the lease transaction stored the signed bytes.
    const first = await approvedWithdrawal('2')
    let before = truth().length
    const early = vi.spyOn(TeamGate.prototype, 'beforeSend').mockImplementationOnce(async function (this: TeamGate, signed) {
      await db.stopServer()
      return original.call(this, signed)
    })
    try {
      await expect(a.call('team.execute', { id: first.id })).rejects.toMatchObject({ code: 'WriteNotSent' })
      expect(truth()).toHaveLength(before) // refused, typed; nothing signed reached the exchange
    } finally {
      early.mockRestore()
      await db.startServer()
    }
    await live()
    expect((await proposal(first.id)).signed).toBeNull() // nothing was stored: the proposal is still approved
    const done = await a.call<WriteOutcome>('team.execute', { id: first.id })
    expect(done.submission.state).toBe('accepted')
    expect(truth().filter((x) => x.cloid === first.cloid)).toHaveLength(1)
    expect(truth()).toHaveLength(before + 1)

    // 2. The database stops after the bytes were stored (write-ahead), while they are on their way.
    const second = await approvedWithdrawal('3')
    before = truth().length
    const late = vi.spyOn(TeamGate.prototype, 'beforeSend').mockImplementationOnce(async function (this: TeamGate, signed) {
      await original.call(this, signed)
      await db.stopServer()
    })
    try {
      const out = await a.call<WriteOutcome>('team.execute', { id: second.id })
      expect(out.submission.state).toBe('accepted') // the exchange answered; the team store could not hear it
      expect(truth().filter((x) => x.cloid === second.cloid)).toHaveLength(1)
      for (const d of [a, b]) await expect.poll(() => status(d), { timeout: 5000, interval: 50 }).toBe('unreachable')
      expect((await b.call<TeamStatusView>('team.status')).detail).toMatch(/team store unreachable/)
      // Team writes are refused while it is away, typed; nothing is signed or sent.
      await expect(a.call('withdraw.submit', { ...WITHDRAW, amount: '4' })).rejects.toMatchObject({ code: 'TeamStoreUnreachable' })
      await expect(b.call('team.approve', { id: forgotten })).rejects.toMatchObject({ code: 'TeamStoreUnreachable' })
      expect(truth()).toHaveLength(before + 1)
    } finally {
      late.mockRestore()
      await db.startServer()
    }
    await live()
    // Nothing lost: the stored bytes are in the chain, and a desk writes the outcome back (the lease ran
    // out with no outcome: the same bytes re-sent are refused as a duplicate and the cloid settles it).
    await expect
      .poll(async () => (await seenOn(b, second.id))?.status, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe('final')
    expect((await seenOn(b, second.id))!.outcome?.state).toMatch(/^(accepted|reconciled)$/)
    const p = await proposal(second.id)
    const txs = truth().filter((x) => x.cloid === second.cloid)
    expect(txs).toHaveLength(1)
    expect(txs[0]!.nonce).toBe(p.signed!.nonce) // the stored bytes, never a second signature
    expect(truth()).toHaveLength(before + 1)
    await expect
      .poll(async () => (await seenOn(a!, second.id))?.status, {
        timeout: 2000,
        interval: 50,
      })
      .toBe('final')
  })

  it('(c) two desks race to take over the same proposal: exactly one sends', async () => {
    // D: a second keyless takeover desk, checking as often as C.
    const d = await startDeskOnSharedSandbox(sandbox, {
      team: { recoverEveryMs: TAKEOVER_TIMER_MS },
    })
    extra.push(d)
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('team.configure', {
      connectionString: db.connectionString,
      password: db.password,
      passphrase: TEST_PASSPHRASE,
    })
    const { address: dan } = await d.call<{ address: string }>('team.join', {
      passphrase: TEST_PASSPHRASE,
    })
    a ??= await openA()
    await a.call('team.members.add', {
      address: dan,
      name: 'Dan',
      roles: ['viewer'],
    })

    const { id, cloid } = await approvedWithdrawal('4')
    const original = TeamGate.prototype.beforeSend
    const spy = vi.spyOn(TeamGate.prototype, 'beforeSend').mockImplementationOnce(async function (this: TeamGate, signed) {
      await original.call(this, signed)
      throw new DeskError('DeskKilled', 'the desk stopped right after storing the signed bytes')
    })
    const before = truth().length
    await expect(a.call('team.execute', { id })).rejects.toMatchObject({
      code: 'WriteNotSent',
    })
    spy.mockRestore()
    await killA()

    await expect
      .poll(async () => (await seenOn(d, id))?.status, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe('final')
    await expect
      .poll(async () => (await seenOn(c, id))?.status, {
        timeout: 2000,
        interval: 50,
      })
      .toBe('final')
    expect(truth().filter((x) => x.cloid === cloid)).toHaveLength(1)
    expect(truth()).toHaveLength(before + 1)
    // Exactly one of the two journaled (and so sent) the bytes; one outcome entry.
    const journaled = await Promise.all(
      [c, d].map((x) =>
        x.call<SubmissionView>('journal.get', { cloid }).then(
          () => true,
          () => false,
        ),
      ),
    )
    expect(journaled.filter(Boolean)).toHaveLength(1)
    const p = await proposal(id)
    expect(p.outcomes).toHaveLength(1)
    expect(p.outcomes[0]!.state).toBe('accepted')
  })

  it('(a) with a real SIGKILL: a desk process killed right after storing the signed bytes; a keyless desk takes over, exactly one transaction', async () => {
    a ??= await openA()
    const { id, cloid } = await approvedWithdrawal('7')
    await killA()
    // Bundled (packages external, inside the repo so node_modules resolves): a real desk core in its own process.
    const child = resolve(__dirname, `../../../../.tmp/team-crash-child-${process.pid}.mjs`)
    await build({
      entryPoints: [resolve(__dirname, '../../../../tests/chaos/team-crash-child.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile: child,
      logLevel: 'warning',
    })
    const before = truth().length
    const exit = await new Promise<{
      signal: NodeJS.Signals | null
      code: number | null
      out: string
    }>((done, fail) => {
      const p = spawn(process.execPath, [child], {
        env: {
          ...process.env,
          DATA_DIR: team.a.dataDir,
          TRADING_URL: sandbox.tradingUrl,
          WS_URL: sandbox.wsUrl,
          EARN_URL: sandbox.earnUrl,
          CHAIN_ID: String(sandbox.chainId),
          PASSPHRASE: TEST_PASSPHRASE,
          PROPOSAL_ID: id,
          LEASE_MS: String(LEASE_MS),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let out = ''
      p.stdout.on('data', (d) => (out += d))
      p.stderr.on('data', (d) => (out += d))
      p.on('error', fail)
      const timer = setTimeout(() => p.kill('SIGKILL'), 60_000)
      p.on('exit', (code, signal) => {
        clearTimeout(timer)
        done({ signal, code, out })
      })
    })
    rmSync(child, { force: true })
    expect(exit.out).toContain('stored')
    expect(exit.signal).toBe('SIGKILL')
    const p = await proposal(id)
    expect(p.signed).not.toBeNull()
    expect(truth()).toHaveLength(before) // killed before anything left

    await expect
      .poll(async () => (await seenOn(c, id))?.outcome?.state, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe('accepted')
    const txs = truth().filter((x) => x.cloid === cloid)
    expect(txs).toHaveLength(1)
    expect(txs[0]!.nonce).toBe(p.signed!.nonce)
    expect(truth()).toHaveLength(before + 1)
    // Written by a keyless takeover desk (C or D, whichever took the lease), not by the killed signer.
    const outcomes = (await proposal(id)).outcomes
    expect(outcomes.map((o) => o.state)).toEqual(['accepted'])
    expect(outcomes[0]!.by).not.toBe(p.signed!.by)
  }, 90_000)

  it('(d) bytes stored but never sent, the envelope expired before any desk took over, the killed desk restarts and takes over itself: unresolved with evidence, never re-signed', async () => {
    // Only A is left to take over: it restarts on the same data directory, whose journal already used the stored nonce.
    await c.close()
    for (const x of extra) await x.close()
    a ??= await openA()
    const { id, cloid } = await approvedWithdrawal('6')
    const original = TeamGate.prototype.beforeSend
    const spy = vi.spyOn(TeamGate.prototype, 'beforeSend').mockImplementationOnce(async function (this: TeamGate, signed) {
      await original.call(this, signed)
      // The takeover desks may only find out once the exchange can no longer execute these bytes.
      exchangeSkewMs = 10 * 60_000
      throw new DeskError('DeskKilled', 'the desk stopped right after storing the signed bytes')
    })
    const before = truth().length
    await expect(a.call('team.execute', { id })).rejects.toMatchObject({
      code: 'WriteNotSent',
    })
    spy.mockRestore()
    await killA()
    await new Promise((r) => setTimeout(r, LEASE_MS + 200))
    a = await openA() // its first recovery pass finds the expired lease

    await expect
      .poll(async () => (await seenOn(a!, id))?.status, {
        timeout: 15_000,
        interval: 100,
      })
      .toBe('final')
    expect(truth().filter((x) => x.cloid === cloid)).toHaveLength(0)
    expect(truth()).toHaveLength(before)
    const p = await proposal(id)
    const [outcome] = p.outcomes
    expect(p.outcomes).toHaveLength(1)
    expect(outcome).toMatchObject({ state: 'unresolved', code: 'ExpiredTx' })
    const evidence = JSON.parse(outcome!.evidence!) as { checks: string[] }
    expect(evidence.checks.join('\n')).toMatch(/txStatusByCloid\(.*\): not found/)
    expect(outcome!.by).toBe(p.signed!.by) // Ann's desk, after its restart
    await expect
      .poll(async () => (await seenOn(b, id))?.outcome?.state, {
        timeout: 2000,
        interval: 50,
      })
      .toBe('unresolved')
    // A's journal: the pipeline's entry (never sent) and the re-sent copy of the same bytes, naming the proposal.
    const entry = await a!.call<SubmissionView>('journal.get', { cloid })
    expect(entry.summary).toContain(id)
    expect(entry).toMatchObject({ state: 'rejected', code: 'ExpiredTx' })
    expect(
      (
        await a!.call<JournalRecordDetail>('journal.record', {
          id: Number(entry.id),
        })
      ).body,
    ).toBe(p.signed!.body)
  })

  it('an approved-never proposal past its expiry reaches its final state on its own: expired, recorded once for every desk', async () => {
    // The recorded outcome, not the status a desk computes from the clock.
    await expect
      .poll(async () => (await seenOn(b, forgotten))?.outcome?.state, {
        timeout: TTL_MS + 5000,
        interval: 200,
      })
      .toBe('expired')
    const p = await proposal(forgotten)
    expect(p.signed).toBeNull()
    expect(p.outcomes.map((o) => o.state)).toEqual(['expired'])
    expect((await seenOn(b, forgotten))?.status).toBe('expired')
  })
})
