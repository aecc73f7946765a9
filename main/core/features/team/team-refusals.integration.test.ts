/**
 * Issue 23's refusals end to end: two desks (A holds the account keys, B approves), one real
 * PostgreSQL, one sandbox whose ground truth says what executed. Each case ends with A asked to
 * execute and refusing with a typed error, and nothing reaching the exchange: an approval replayed
 * onto another proposal, an approval by a removed operator, a forged entry, reordered entries, a
 * proposal changed after its approval, an expired proposal. The cases that tamper with the database
 * each get a fresh team (a database of their own on the same server) and two fresh desks (a vault
 * belongs to one team for good), so one broken chain does not hide the next.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TeamProposalView, TeamStatusView, WriteOutcome } from '../../../contract/types'
import { TeamStore, entryDigest, sealEntry, signEntry, toStoredRow, verifyStore } from '../../team'
import { operator } from '../../team/testing/team-fixture'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { COLD_DEST as DEST, startKeyedAndApprover, type SharedSandboxDesk } from '../../../testing/team-desks'

const WITHDRAW = { account: devOwner(0).address.toLowerCase(), assetId: 1, amount: '2', dstChainId: '1', dstAddress: DEST }
/** Proposals expire this long after they are made (the expiry case waits for it). */
const TTL_MS = 4000

describe('refused with a typed error, nothing sent (real PostgreSQL, sandbox ground truth)', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let closeDesks: (() => Promise<void>) | null = null
  let bob = ''
  let teams = 0
  /** The current team's database, as its administrator (tampering bypasses the append-only triggers). */
  let dba: pg.ClientConfig
  let store: TeamStore | null = null
  const truth = () => sandbox.trading.groundTruth()

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: { code: string; message: string; details?: Record<string, unknown> }) => e,
    )

  async function asDba(sql: string, params: unknown[] = []): Promise<void> {
    const c = new pg.Client(dba)
    await c.connect()
    try {
      await c.query('ALTER TABLE team_log DISABLE TRIGGER team_log_no_change')
      await c.query(sql, params)
      await c.query('ALTER TABLE team_log ENABLE TRIGGER team_log_no_change')
    } finally {
      await c.end()
    }
  }

  /** A new team in a database of its own: Ann (A) admin and trader, Bob (B) approver, withdrawals need 1 approver. */
  async function freshTeam(): Promise<void> {
    const name = `team_case_${++teams}`
    const admin = new pg.Client(db.adminConfig)
    await admin.connect()
    try {
      await admin.query(`CREATE DATABASE ${name} OWNER desk`)
    } finally {
      await admin.end()
    }
    dba = { ...db.adminConfig, database: name }
    await closeDesks?.()
    ;({
      a,
      b,
      bob,
      close: closeDesks,
    } = await startKeyedAndApprover(sandbox, {
      a: { recoverEveryMs: 0, proposalTtlMs: TTL_MS },
      b: { recoverEveryMs: 0 },
    }))
    const connectionString = db.connectionString.replace(/\/team$/, `/${name}`)
    const cfg = { connectionString, password: db.password, passphrase: TEST_PASSPHRASE }
    for (const d of [a, b]) await d.call('team.configure', cfg)
    await a.call('team.init', { teamName: `Ops ${teams}`, name: 'Ann', passphrase: TEST_PASSPHRASE })
    await a.call('team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
    await a.call('team.policy.set', {
      rules: [
        { id: 'withdraw-4eyes', kinds: ['withdraw'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
    await store?.close()
    store = await TeamStore.open({ connectionString, password: db.password })
    await expect.poll(async () => (await b.call<TeamStatusView>('team.status')).policyVersion, { timeout: 3000, interval: 50 }).toBe(1)
  }

  /** A withdrawal proposed on A (nothing sent), optionally approved on B; its id and cloid. */
  async function proposal(amount: string, approve: boolean): Promise<{ id: string; cloid: string }> {
    const out = await a.call<WriteOutcome>('withdraw.submit', { ...WITHDRAW, amount })
    expect(out.submission.state).toBe('proposed')
    const id = out.proposalId!
    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).some((p) => p.id === id), {
        timeout: 3000,
        interval: 50,
      })
      .toBe(true)
    if (approve) expect(await b.call<TeamProposalView>('team.approve', { id })).toMatchObject({ status: 'approved' })
    return { id, cloid: out.submission.cloid }
  }

  /** A is asked to execute: a typed refusal, and the exchange holds nothing for the cloid. */
  async function refusedOnA(p: { id: string; cloid: string }, code: string | RegExp): Promise<{ code: string; message: string }> {
    const before = truth().length
    const e = await failure(a.call('team.execute', { id: p.id }))
    expect(e).not.toBeNull()
    expect(e!.code).toMatch(code)
    expect(truth()).toHaveLength(before)
    expect(truth().filter((x) => x.cloid === p.cloid)).toEqual([])
    return e!
  }

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
  })

  afterAll(async () => {
    await closeDesks?.()
    await store?.close()
    await sandbox?.stop()
    await db?.stop()
  })

  it('an approval replayed onto another proposal: its signature names the first one; the chain is refused at that entry', async () => {
    await freshTeam()
    const first = await proposal('2', true)
    const second = await proposal('3', false)
    const rows = await store!.readLog()
    const approval = rows.find((r) => r.kind === 'approval')!
    const head = rows.at(-1)!
    // Bob's approval of the first proposal, re-pointed at the second and appended as the next entry.
    const seq = head.seq + 1n
    const payload = approval.payload.replace(first.id, second.id)
    const teamId = (await verifyStore(store!)).state.roster!.teamId
    const digest = entryDigest(teamId, { seq, prev: head.digest as `0x${string}`, kind: 'approval', payload })
    await asDba('INSERT INTO team_log (seq, prev, kind, payload, digest, signatures) VALUES ($1, $2, $3, $4, $5, $6)', [
      seq.toString(),
      head.digest,
      'approval',
      payload,
      digest,
      approval.signatures,
    ])
    const e = await refusedOnA(second, 'TeamChainTampered')
    expect(e.message).toContain(`entry ${seq}`)
    expect((await verifyStore(store!)).broken).toEqual({ seq, reason: `signature of ${bob} does not verify` })
    // The legitimately approved first proposal is refused too: nothing runs on a chain that does not verify.
    await refusedOnA(first, 'TeamChainTampered')
  })

  it('an approval by an operator removed from the roster: refused when given, and one given before the removal stops counting', async () => {
    await freshTeam()
    const p = await proposal('2', true)
    await a.call('team.members.remove', { address: bob })
    const e = await refusedOnA(p, 'TeamProposalRefused')
    expect(e.message).toMatch(/not approved/)
    expect(await failure(b.call('team.approve', { id: p.id }))).toMatchObject({ code: /TeamProposalRefused|TeamNotMember/ })
    // The chain itself is sound: the refusal comes from the verified roster, not from tampering.
    expect((await verifyStore(store!)).ok).toBe(true)
    expect(truth().filter((x) => x.cloid === p.cloid)).toEqual([])
  })

  it("a forged entry (an approval signed by a stranger in an approver's name): the chain is refused there, nothing executes", async () => {
    await freshTeam()
    const p = await proposal('2', false)
    const { state } = await verifyStore(store!)
    const head = state.head!
    const mallory = operator('mallory')
    const unsigned = {
      seq: head.seq + 1n,
      prev: head.digest,
      kind: 'approval' as const,
      payload: JSON.stringify({ at: Date.now(), policyVersion: 1, proposal: p.id }),
    }
    const sig = await signEntry(mallory, state.roster!.teamId, unsigned)
    const forged = sealEntry(state.roster!.teamId, unsigned, [{ signer: bob as `0x${string}`, signature: sig.signature }])
    await asDba('INSERT INTO team_log (seq, prev, kind, payload, digest, signatures) VALUES ($1, $2, $3, $4, $5, $6)', [
      forged.seq.toString(),
      forged.prev,
      forged.kind,
      forged.payload,
      forged.digest,
      toStoredRow(forged).signatures,
    ])
    expect((await verifyStore(store!)).broken).toEqual({ seq: forged.seq, reason: `signature of ${bob} does not verify` })
    const e = await refusedOnA(p, 'TeamChainTampered')
    expect(e.message).toContain(`entry ${forged.seq}`)
  })

  it('reordered entries (a proposal and its approval swapped in the database): refused at the first one out of place', async () => {
    await freshTeam()
    const p = await proposal('2', true)
    const rows = await store!.readLog()
    const approval = rows.at(-1)!
    const prop = rows.at(-2)!
    expect([prop.kind, approval.kind]).toEqual(['proposal', 'approval'])
    await asDba('UPDATE team_log SET seq = 1000000 WHERE seq = $1', [prop.seq.toString()])
    await asDba('UPDATE team_log SET seq = $1 WHERE seq = $2', [prop.seq.toString(), approval.seq.toString()])
    await asDba('UPDATE team_log SET seq = $1 WHERE seq = 1000000', [approval.seq.toString()])
    expect((await verifyStore(store!)).broken?.seq).toBe(prop.seq)
    // A's verified head (the approval) now holds another entry: a fork at its kept head, or the reorder itself.
    await refusedOnA(p, /TeamChainTampered|TeamChainRolledBack/)
  })

  it('a proposal changed in the database after its approval (another destination): refused naming it, nothing sent', async () => {
    await freshTeam()
    const p = await proposal('2', true)
    const row = (await store!.readLog()).find((r) => r.digest === p.id)!
    await asDba('UPDATE team_log SET payload = $1 WHERE seq = $2', [
      row.payload.replaceAll(DEST.toLowerCase(), '0x3333333333333333333333333333333333333333'),
      row.seq.toString(),
    ])
    const e = await refusedOnA(p, 'TeamChainTampered')
    expect(e.message).toContain(`entry ${row.seq}`)
    expect((await verifyStore(store!)).broken).toEqual({
      seq: row.seq,
      reason: 'content does not match its stored digest (the row was edited)',
    })
    // A desk that had verified the row before shows the tampering from now on, and refuses every team write.
    expect(await a.call<TeamStatusView>('team.status')).toMatchObject({
      state: 'tampered',
      broken: { seq: row.seq.toString(), reason: 'content does not match its stored digest (the row was edited)' },
    })
    await expect(a.call('withdraw.submit', { ...WITHDRAW, amount: '3' })).rejects.toMatchObject({ code: 'TeamChainTampered' })
  })

  it('an expired proposal, approved in time: execution refused typed, nothing sent, and it ends expired', async () => {
    await freshTeam()
    const p = await proposal('2', true)
    await new Promise((r) => setTimeout(r, TTL_MS + 200))
    await refusedOnA(p, /WriteBlocked|TeamProposalRefused/)
    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'history' })).find((x) => x.id === p.id)?.status, {
        timeout: 3000,
        interval: 50,
      })
      .toBe('expired')
    const after = (await verifyStore(store!)).state.proposals.get(p.id)!
    expect(after.signed).toBeNull()
    expect(after.outcomes.map((o) => o.state)).toEqual(['expired'])
  })
})
