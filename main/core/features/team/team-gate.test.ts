/**
 * TeamGate against a real PostgreSQL (one server for the file, the log emptied between tests):
 * proposal -> approvals -> allow -> signed bytes stored -> outcome, and every refusal the issue
 * lists (own approval, double approval, replayed approval, removed approver, edited proposal,
 * expiry, two desks racing to send, the database stopping mid-approval).
 */
import pg from 'pg'
import { randomBytes } from 'node:crypto'
import type { Address } from 'viem'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import {
  TeamErrors,
  TeamStore,
  canonicalJson,
  entryDigest,
  lifecycleEntry,
  rosterEntry,
  signedEntry,
  toStoredRow,
  verifyStore,
  type SignedEntry,
} from '../../team'
import { ChainBuilder, asMember, operator, type Operator } from '../../team/testing/team-fixture'
import type { SignedWrite, WriteIntent } from '../../writes/decision'
import { promises as fs } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Vault, vaultPath } from '../../vault'
import { DeskError } from '../../errors/desk-error'
import { TeamGate } from './team-gate'
import { vaultTeamSigner } from './vault-signer'

let db: PostgresHandle
const stores: TeamStore[] = []
let clock = Date.UTC(2026, 10, 26, 9, 0, 0)

const ann = operator('ann') // admin
const bob = operator('bob') // approver
const cat = operator('cat') // approver
const dan = operator('dan') // trader: proposes
const ACC = '0x1111111111111111111111111111111111111111' as Address
const DEST = '0x2222222222222222222222222222222222222222' as Address

async function asDba(sql: string, params: unknown[] = []): Promise<void> {
  const c = new pg.Client(db.adminConfig)
  await c.connect()
  try {
    await c.query('ALTER TABLE team_log DISABLE TRIGGER team_log_no_change')
    await c.query(sql, params)
    await c.query('ALTER TABLE team_log ENABLE TRIGGER team_log_no_change')
  } finally {
    await c.end()
  }
}

const openStore = async () => {
  const s = await TeamStore.open({ connectionString: db.connectionString, password: db.password, connectTimeoutMs: 1000 })
  stores.push(s)
  return s
}

let store: TeamStore
let team: ChainBuilder

/** A desk: its own store connection and its operator's identity key. */
async function desk(who: Operator, deskId = `${who.name}-desk`, leaseMs?: number): Promise<TeamGate> {
  return new TeamGate({
    store: await openStore(),
    operator: who,
    deskId,
    genesisDigest: team.entries[0]!.digest,
    proposalTtlMs: 3600_000,
    now: () => clock,
    ...(leaseMs !== undefined ? { leaseMs } : {}),
  })
}

function withdrawal(o: Partial<WriteIntent> = {}): WriteIntent {
  return {
    kind: 'withdraw',
    network: 'sandbox',
    exchange: 'sandbox-1',
    account: ACC,
    signer: ACC,
    cloid: `0x${randomBytes(16).toString('hex')}`,
    action: { type: 'withdraw', amount: '1500.5', asset: 'USDC', destination: DEST },
    usdAtoms: 1500_50000000n,
    destination: { address: DEST },
    title: 'Withdraw 1,500.50 USDC',
    preview: ['Amount 1,500.50 USDC', 'Fee 1.00 USDC'],
    ...o,
  }
}

function sent(intent: WriteIntent, nonce: string): SignedWrite {
  return {
    intent,
    journalId: 1,
    nonce,
    body: JSON.stringify({ action: intent.action, nonce, signature: `0x${randomBytes(65).toString('hex')}` }),
  }
}

/** Appends an entry as an honest desk would not (the chain's own pre-checks bypassed). */
async function insertRaw(e: SignedEntry): Promise<void> {
  const r = toStoredRow(e)
  await asDba('INSERT INTO team_log (seq, prev, kind, payload, digest, signatures) VALUES ($1, $2, $3, $4, $5, $6)', [
    r.seq.toString(),
    r.prev,
    r.kind,
    r.payload,
    r.digest,
    r.signatures,
  ])
}

beforeAll(async () => {
  db = await startPostgres()
  store = await openStore()
})

afterAll(async () => {
  for (const s of stores.splice(0)) await s.close()
  await db?.stop()
})

beforeEach(async () => {
  await asDba('DELETE FROM team_log')
  await asDba('DELETE FROM team_leases')
  clock += 24 * 3600_000
  team = await ChainBuilder.genesis(ann, [
    asMember(ann, ['admin']),
    asMember(bob, ['approver']),
    asMember(cat, ['approver']),
    asMember(dan, ['trader']),
  ])
  await team.policy(
    [
      { id: 'withdrawals', kinds: ['withdraw'], minUsd: '1000', then: { effect: 'approve', count: 2, roles: ['approver'] } },
      { id: 'small', kinds: ['withdraw', 'transfer'], then: { effect: 'allow' } },
    ],
    [ann],
  )
  for (const e of team.entries) await store.append(e)
})

/** dan proposes a withdrawal; returns the intent and the proposal id. */
async function proposed(gate: TeamGate): Promise<{ intent: WriteIntent; id: string }> {
  const intent = withdrawal()
  const d = await gate.decide(intent)
  if (d.verdict !== 'propose') throw new Error(`expected a proposal, got ${JSON.stringify(d)}`)
  return { intent, id: d.proposalId }
}

describe('TeamGate: proposal, approvals, execution', () => {
  it('turns a large withdrawal into a proposal, allows it once two approvers signed, stores the bytes before sending, and records the outcome', async () => {
    const [danDesk, bobDesk, catDesk] = await Promise.all([desk(dan), desk(bob), desk(cat)])
    expect(await danDesk.decide(withdrawal({ usdAtoms: 999_99999999n }))).toEqual({ verdict: 'allow' }) // the small rule
    expect(await danDesk.decide(withdrawal({ cloid: '' }))).toMatchObject({
      verdict: 'block',
      code: TeamErrors.refused,
      reason: expect.stringMatching(/no cloid/),
    })
    const { intent, id } = await proposed(danDesk)
    expect(await danDesk.decide(intent)).toMatchObject({ verdict: 'propose', proposalId: id, needs: '0 of 2 approval(s) from approver' })
    await bobDesk.approve(id)
    expect(await danDesk.decide(intent)).toMatchObject({ verdict: 'propose', needs: '1 of 2 approval(s) from approver' })
    await catDesk.approve(id)
    expect(await danDesk.decide(intent)).toEqual({ verdict: 'allow', proposalId: id })
    // The same cloid with another action is not this proposal.
    expect(await danDesk.decide({ ...intent, action: { ...intent.action, amount: '150000' } })).toMatchObject({
      verdict: 'block',
      code: 'TeamProposalMismatch',
    })

    const write = sent(intent, '1764147600000')
    await danDesk.beforeSend(write)
    expect(await bobDesk.signedBytesFor(id)).toMatchObject({ body: write.body, nonce: write.nonce, by: dan.address.toLowerCase() })
    await danDesk.settled(intent, { state: 'accepted', finalStatus: 'ok', code: null })
    const report = await verifyStore(store)
    expect(report.ok).toBe(true)
    expect(report.state.proposals.get(id)?.outcomes.map((o) => o.state)).toEqual(['accepted'])
    expect((await bobDesk.proposals()).map((p) => p.status)).toEqual(['final'])
    expect(await danDesk.decide(intent)).toMatchObject({ verdict: 'block', code: TeamErrors.alreadySigned })
  })

  it("refuses the initiator's own approval and a second approval by the same approver", async () => {
    const [danDesk, bobDesk] = await Promise.all([desk(dan), desk(bob)])
    const { intent, id } = await proposed(danDesk)
    await expect(danDesk.approve(id)).rejects.toMatchObject({
      code: TeamErrors.refused,
      message: expect.stringMatching(/not a member|roles the rule names|initiator/),
    })
    await bobDesk.approve(id)
    await expect(bobDesk.approve(id)).rejects.toMatchObject({
      code: TeamErrors.refused,
      message: expect.stringMatching(/already approved/),
    })
    expect(await danDesk.decide(intent)).toMatchObject({ verdict: 'propose', needs: '1 of 2 approval(s) from approver' })
    // Forced into the database anyway, a second approval by bob breaks the chain at that entry.
    const state = (await verifyStore(store)).state
    await insertRaw(
      await signedEntry(team.teamId, { ...lifecycleEntryUnchecked(state, 'approval', { proposal: id, policyVersion: 1, at: clock }) }, [
        bob,
      ]),
    )
    const r = await verifyStore(store)
    expect(r.broken).toEqual({ seq: state.head!.seq + 1n, reason: `${bob.address.toLowerCase()} already approved this proposal` })
    await expect(danDesk.decide(intent)).rejects.toMatchObject({
      code: TeamErrors.tampered,
      details: { seq: String(state.head!.seq + 1n) },
    })
  })

  it('refuses an initiator approving even when they hold an approver role', async () => {
    const danDesk = await desk(dan)
    const { id } = await proposed(danDesk)
    const state = (await verifyStore(store)).state
    await store.append(
      await signedEntry(team.teamId, rosterEntry(state, [{ op: 'roles', address: dan.address, roles: ['trader', 'approver'] }]), [ann]),
    )
    await expect(danDesk.approve(id)).rejects.toMatchObject({
      code: TeamErrors.refused,
      message: 'the initiator cannot approve their own proposal',
    })
  })

  it('refuses an approval replayed onto another proposal (its signature is bound to the proposal it named)', async () => {
    const [danDesk, bobDesk] = await Promise.all([desk(dan), desk(bob)])
    const a = await proposed(danDesk)
    const b = await proposed(danDesk)
    await bobDesk.approve(a.id)
    const rows = await store.readLog()
    const approval = rows.at(-1)!
    // The approval's signed content, re-pointed at proposal b, appended as the next entry.
    const payload = approval.payload.replace(a.id, b.id)
    const seq = approval.seq + 1n
    const prev = approval.digest as `0x${string}`
    const digest = entryDigest(team.teamId, { seq, prev, kind: 'approval', payload })
    await asDba('INSERT INTO team_log (seq, prev, kind, payload, digest, signatures) VALUES ($1, $2, $3, $4, $5, $6)', [
      seq.toString(),
      prev,
      'approval',
      payload,
      digest,
      approval.signatures,
    ])
    const r = await verifyStore(store)
    expect(r.broken).toEqual({ seq, reason: `signature of ${bob.address.toLowerCase()} does not verify` })
    expect(r.state.proposals.get(b.id)?.approvals).toEqual([])
    await expect(danDesk.decide(b.intent)).rejects.toMatchObject({ code: TeamErrors.tampered })
  })

  it('refuses an approval by an operator removed from the roster, and stops counting one given before the removal', async () => {
    const [danDesk, bobDesk, catDesk] = await Promise.all([desk(dan), desk(bob), desk(cat)])
    const { intent, id } = await proposed(danDesk)
    await bobDesk.approve(id)
    await catDesk.approve(id)
    expect(await danDesk.decide(intent)).toMatchObject({ verdict: 'allow' })
    const state = (await verifyStore(store)).state
    await store.append(await signedEntry(team.teamId, rosterEntry(state, [{ op: 'remove', address: cat.address }]), [ann]))
    expect(await danDesk.decide(intent)).toMatchObject({ verdict: 'propose', needs: '1 of 2 approval(s) from approver' })
    await expect(danDesk.beforeSend(sent(intent, '1'))).rejects.toMatchObject({
      code: TeamErrors.refused,
      message: expect.stringMatching(/is open: nothing may be sent/),
    })

    const second = await proposed(danDesk)
    await expect(catDesk.approve(second.id)).rejects.toMatchObject({
      code: TeamErrors.refused,
      message: expect.stringMatching(/not a member/),
    })
    // Written straight into the database with cat's valid signature: refused at that entry.
    const now = (await verifyStore(store)).state
    await insertRaw(
      await signedEntry(team.teamId, lifecycleEntryUnchecked(now, 'approval', { proposal: second.id, policyVersion: 1, at: clock }), [cat]),
    )
    const r = await verifyStore(store)
    expect(r.broken).toEqual({
      seq: now.head!.seq + 1n,
      reason: `signed by ${cat.address.toLowerCase()}, who is not a member at this point`,
    })
  })

  it('refuses a proposal edited in the database after its approvals, naming the edited entry', async () => {
    const [danDesk, bobDesk, catDesk] = await Promise.all([desk(dan), desk(bob), desk(cat)])
    const { intent, id } = await proposed(danDesk)
    await bobDesk.approve(id)
    await catDesk.approve(id)
    const row = (await store.readLog()).find((r) => r.digest === id)!
    await asDba('UPDATE team_log SET payload = $1 WHERE seq = $2', [
      row.payload.replace(DEST.toLowerCase(), '0x3333333333333333333333333333333333333333'),
      row.seq.toString(),
    ])
    const fresh = await desk(dan)
    await expect(fresh.decide(intent)).rejects.toMatchObject({
      code: TeamErrors.tampered,
      details: { seq: row.seq.toString(), reason: 'content does not match its stored digest (the row was edited)' },
    })
    // A desk that verified it before reads the edit as a broken chain only when it re-reads it: the new entries after it no longer link.
    expect((await verifyStore(store)).broken?.seq).toBe(row.seq)
    // ...and before it signs, it reads again the rows the execution rests on: refused, nothing stored.
    await expect(danDesk.beforeSend(sent(intent, '1'))).rejects.toMatchObject({
      code: TeamErrors.tampered,
      details: { seq: row.seq.toString(), reason: 'content does not match its stored digest (the row was edited)' },
    })
    expect((await store.readLog()).some((r) => r.kind === 'signed')).toBe(false)
  })

  it('refuses to sign when a row it verified was replaced below the head (an approval swapped for another valid one)', async () => {
    const [danDesk, bobDesk, catDesk] = await Promise.all([desk(dan), desk(bob), desk(cat)])
    const { intent, id } = await proposed(danDesk)
    await bobDesk.approve(id)
    await catDesk.approve(id)
    expect(await danDesk.decide(intent)).toMatchObject({ verdict: 'allow' })
    // The approval rows' signature lists swapped: each row still hashes to its digest, but they are not what was verified.
    const [x, y] = (await store.readLog()).filter((r) => r.kind === 'approval')
    await asDba('UPDATE team_log SET signatures = $1 WHERE seq = $2', [y!.signatures, x!.seq.toString()])
    await expect(danDesk.beforeSend(sent(intent, '1'))).rejects.toMatchObject({
      code: TeamErrors.tampered,
      details: { seq: x!.seq.toString(), reason: 'the row differs from the one this desk verified (replaced or moved in the database)' },
    })
    expect((await store.readLog()).some((r) => r.kind === 'signed')).toBe(false)
  })

  it('refuses an expired proposal: no approval, no execution, and it reaches the final state expired', async () => {
    const [danDesk, bobDesk, catDesk] = await Promise.all([desk(dan), desk(bob), desk(cat)])
    const { intent, id } = await proposed(danDesk)
    await bobDesk.approve(id)
    clock += 3600_000 // the TTL
    await expect(catDesk.approve(id)).rejects.toMatchObject({ code: TeamErrors.refused, message: expect.stringMatching(/expired/) })
    expect(await danDesk.decide(intent)).toMatchObject({ verdict: 'block', code: 'TeamProposalExpired' })
    await expect(danDesk.beforeSend(sent(intent, '1'))).rejects.toMatchObject({
      code: TeamErrors.refused,
      message: expect.stringMatching(/expired/),
    })
    const r = await verifyStore(store)
    expect(r.ok).toBe(true)
    expect(r.state.proposals.get(id)?.outcomes.map((o) => o.state)).toEqual(['expired'])
    expect((await bobDesk.proposals()).map((p) => p.status)).toEqual(['expired'])
    expect(await bobDesk.expireDue()).toBe(0)
  })

  it('lets exactly one of two desks racing to send store its bytes; the other gets TeamAlreadySigned with those bytes and re-sends them after the lease', async () => {
    const [bobDesk, catDesk] = await Promise.all([desk(bob), desk(cat)])
    const desk1 = await desk(dan, 'desk-1')
    const desk2 = await desk(dan, 'desk-2')
    const { intent, id } = await proposed(desk1)
    await bobDesk.approve(id)
    await catDesk.approve(id)
    expect(await desk1.decide(intent)).toMatchObject({ verdict: 'allow' })
    expect(await desk2.decide(intent)).toMatchObject({ verdict: 'allow' })
    const writes = [sent(intent, '1764147600001'), sent(intent, '1764147600002')]
    const results = await Promise.allSettled([desk1.beforeSend(writes[0]!), desk2.beforeSend(writes[1]!)])
    const won = results.findIndex((r) => r.status === 'fulfilled')
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(lost.reason).toMatchObject({
      code: TeamErrors.alreadySigned,
      details: { proposalId: id, body: writes[won]!.body, nonce: writes[won]!.nonce },
    })
    const [winner, loser] = won === 0 ? [desk1, desk2] : [desk2, desk1]
    const r = await verifyStore(store)
    expect((await store.readLog()).filter((row) => row.kind === 'signed')).toHaveLength(1)
    expect(r.state.proposals.get(id)?.signed?.body).toBe(writes[won]!.body)
    // The loser may not take over while the winner's lease runs; once the winner is done it gets the same bytes.
    await expect(loser.takeOver(id)).rejects.toMatchObject({ code: TeamErrors.leaseHeld })
    await winner.settled(intent, { state: 'unknown', finalStatus: null, code: 'NodeUnreachable' })
    await expect(loser.takeOver(id)).rejects.toMatchObject({ code: TeamErrors.leaseHeld })
    await winner.settled(intent, { state: 'reconciled', finalStatus: 'ok', code: null })
    expect(await loser.takeOver(id)).toMatchObject({ body: writes[won]!.body, nonce: writes[won]!.nonce })
    expect(await loser.signedBytesFor(id)).toMatchObject({ body: writes[won]!.body })
  })

  it('takeover claim: nobody (not even the holder) claims a running lease; once it expired exactly one of two racing desks gets the stored bytes; a final outcome with evidence ends it', async () => {
    const [bobDesk, catDesk] = await Promise.all([desk(bob), desk(cat)])
    const danDesk = await desk(dan, 'dan-desk-1')
    const { intent, id } = await proposed(danDesk)
    await bobDesk.approve(id)
    await catDesk.approve(id)
    expect(await bobDesk.claimExpired(id)).toBeNull() // nothing signed yet: nothing to take over
    const w = sent(intent, '1764147600001')
    await danDesk.beforeSend(w)
    expect((await catDesk.unsettled()).map((p) => p.id)).toEqual([id])
    // A running lease is a send in progress, whoever holds it.
    await expect(danDesk.claimExpired(id)).rejects.toMatchObject({ code: TeamErrors.leaseHeld })
    await expect(bobDesk.claimExpired(id)).rejects.toMatchObject({ code: TeamErrors.leaseHeld })
    // The holder died: its lease runs out (server clock).
    await asDba("UPDATE team_leases SET expires_at = now() - interval '1 second' WHERE proposal_id = $1", [id])
    const results = await Promise.allSettled([bobDesk.claimExpired(id), catDesk.claimExpired(id)])
    const won = results.filter((r) => r.status === 'fulfilled')
    expect(won).toHaveLength(1)
    expect((won[0] as PromiseFulfilledResult<unknown>).value).toMatchObject({ proposalId: id, body: w.body, nonce: w.nonce })
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: TeamErrors.leaseHeld })
    const winner = results[0]!.status === 'fulfilled' ? bobDesk : catDesk

    await expect(winner.recordOutcome(id, { state: 'expired', finalStatus: null, code: null })).rejects.toMatchObject({
      code: TeamErrors.refused,
    })
    await winner.recordOutcome(id, { state: 'unknown', finalStatus: null, code: 'ClientTimeout' })
    expect(await catDesk.unsettled()).toHaveLength(1) // not final: still to be taken over once the lease runs out
    const evidence = JSON.stringify({ checks: ['txStatusByCloid(0x1111…, cloid): not found'] })
    await winner.recordOutcome(id, { state: 'unresolved', finalStatus: 'unresolved', code: 'ExpiredTx', evidence })
    const r = await verifyStore(store)
    expect(r.ok).toBe(true)
    expect(r.state.proposals.get(id)?.outcomes.map((o) => [o.state, o.evidence ?? null])).toEqual([
      ['unknown', null],
      ['unresolved', evidence],
    ])
    expect((await store.readLog()).filter((row) => row.kind === 'signed')).toHaveLength(1)
    // Final: nothing left to take over, and the lease was released.
    expect(await catDesk.unsettled()).toEqual([])
    expect(await danDesk.claimExpired(id)).toBeNull()
  })

  it('keeps its execution lease while a send outlives it, and lets it run out once the send ended', async () => {
    const [danDesk, bobDesk, catDesk] = await Promise.all([desk(dan, 'dan-desk', 600), desk(bob), desk(cat)])
    const { intent, id } = await proposed(danDesk)
    await bobDesk.approve(id)
    await catDesk.approve(id)
    await danDesk.beforeSend(sent(intent, '1764147600002'))
    const done = danDesk.sending(intent)
    // Three lease lengths into a send (resends of the same bytes): still held, nobody takes over.
    await new Promise((r) => setTimeout(r, 1_800))
    await expect(bobDesk.claimExpired(id)).rejects.toMatchObject({ code: TeamErrors.leaseHeld })
    done()
    await new Promise((r) => setTimeout(r, 900))
    expect(await bobDesk.claimExpired(id)).toMatchObject({ proposalId: id })
    // A write this desk did not lease (allowed outright) renews nothing.
    expect(() => danDesk.sending(withdrawal({ cloid: '0x' + 'ab'.repeat(16) }))()).not.toThrow()
  })

  it('takes approvals from an identity key held in the vault, and a rejection (reason required) ends the proposal', async () => {
    const dir = await fs.mkdtemp(join(tmpdir(), 'team-gate-vault-'))
    try {
      const vault = await Vault.create({
        path: vaultPath(dir),
        passphrase: 'correct horse battery staple',
        scrypt: { n: 1024, r: 8, p: 1 },
        autoLockMs: null,
      })
      const eveKey = await vault.createIdentityKey()
      const state = (await verifyStore(store)).state
      await store.append(
        await signedEntry(team.teamId, rosterEntry(state, [{ op: 'add', address: eveKey, name: 'eve', roles: ['approver'] }]), [ann]),
      )
      const eveDesk = new TeamGate({ store: await openStore(), operator: vaultTeamSigner(vault), deskId: 'eve-desk', now: () => clock })
      const [danDesk, bobDesk] = await Promise.all([desk(dan), desk(bob)])
      const first = await proposed(danDesk)
      await bobDesk.approve(first.id)
      await eveDesk.approve(first.id)
      expect(await danDesk.decide(first.intent)).toEqual({ verdict: 'allow', proposalId: first.id })

      const second = await proposed(danDesk)
      await expect(eveDesk.reject(second.id, '  ')).rejects.toMatchObject({
        code: TeamErrors.refused,
        message: expect.stringMatching(/needs a reason/),
      })
      await eveDesk.reject(second.id, 'destination not in the treasury plan')
      await expect(bobDesk.approve(second.id)).rejects.toMatchObject({
        code: TeamErrors.refused,
        message: expect.stringMatching(/was rejected/),
      })
      expect(await danDesk.decide(second.intent)).toMatchObject({
        verdict: 'block',
        code: 'TeamProposalRejected',
        reason: expect.stringMatching(/destination not in the treasury plan/),
      })
      const third = await proposed(danDesk)
      vault.lock() // the identity key signs only while the vault is unlocked
      await expect(eveDesk.approve(third.id)).rejects.toMatchObject({ code: 'VaultLocked' })
    } finally {
      await fs.rm(dir, { recursive: true, force: true })
    }
  })

  it('says TeamStoreUnreachable when the database stops mid-approval, loses nothing, and carries on after restart', async () => {
    const [danDesk, bobDesk, catDesk] = await Promise.all([desk(dan), desk(bob), desk(cat)])
    const { intent, id } = await proposed(danDesk)
    await bobDesk.approve(id)
    await db.stopServer()
    try {
      await expect(catDesk.approve(id)).rejects.toMatchObject({ code: TeamErrors.unreachable })
      await expect(danDesk.decide(intent)).rejects.toMatchObject({ code: TeamErrors.unreachable })
      await expect(danDesk.beforeSend(sent(intent, '1'))).rejects.toMatchObject({ code: TeamErrors.unreachable })
    } finally {
      await db.startServer()
    }
    expect(await danDesk.decide(intent)).toMatchObject({ verdict: 'propose', needs: '1 of 2 approval(s) from approver' })
    await catDesk.approve(id)
    expect(await danDesk.decide(intent)).toEqual({ verdict: 'allow', proposalId: id })
    const r = await verifyStore(store)
    expect(r.ok).toBe(true)
    expect(r.state.proposals.get(id)?.approvals.map((a) => a.by)).toEqual([bob.address.toLowerCase(), cat.address.toLowerCase()])
  })
})

/** The next lifecycle entry without the chain's pre-checks: what a dishonest client could write. */
function lifecycleEntryUnchecked(state: Parameters<typeof lifecycleEntry>[0], kind: 'approval', payload: Record<string, unknown>) {
  const seq = state.head!.seq + 1n
  return {
    seq,
    prev: state.head!.digest,
    kind,
    payload: JSON.stringify(Object.fromEntries(Object.entries(payload).sort(([a], [b]) => (a < b ? -1 : 1)))),
  } as const
}

describe('TeamGate: the rolling window (policy rules with minWindowUsd)', () => {
  it("sums the USD values the account's proposals of the last 24 h recorded when they were made, this write included; rejected and old ones leave it", async () => {
    await store.append(
      await team.policy(
        [
          { id: 'window', kinds: ['withdraw'], minWindowUsd: '3000', then: { effect: 'approve', count: 2, roles: ['approver'] } },
          { id: 'per-write', kinds: ['withdraw'], minUsd: '1000', then: { effect: 'approve', count: 1, roles: ['approver'] } },
          { id: 'small', then: { effect: 'allow' } },
        ],
        [ann],
      ),
    )
    const [danDesk, bobDesk] = await Promise.all([desk(dan), desk(bob)])
    const propose = async (o: Partial<WriteIntent>) => {
      const d = await danDesk.decide(withdrawal(o))
      if (d.verdict !== 'propose') throw new Error(`expected a proposal, got ${JSON.stringify(d)}`)
      return d
    }
    const first = await propose({ usdAtoms: 2000_00000000n })
    expect(first.needs).toBe('1 approval(s) from approver (rule per-write)')
    // 2,000 recorded by the first + 1,500 now: over the window's 3,000 (this write alone is not).
    const second = await propose({ usdAtoms: 1500_00000000n })
    expect(second.needs).toBe('2 approval(s) from approver (rule window)')
    const recorded = (await verifyStore(store)).state.proposals.get(second.proposalId)!
    expect(recorded.windowUsd).toBe(3500_00000000n) // the total is signed into the proposal; every desk verifies the same figure
    // Another account's window is its own.
    expect((await propose({ account: DEST, usdAtoms: 1500_00000000n })).needs).toMatch(/rule per-write/)

    await bobDesk.reject(first.proposalId, 'not this one')
    await bobDesk.reject(second.proposalId, 'nor this one')
    const third = await propose({ usdAtoms: 1500_00000000n })
    expect(third.needs).toMatch(/rule per-write/) // rejected proposals moved nothing
    expect((await propose({ usdAtoms: 1500_00000000n })).needs).toMatch(/rule window/) // 1,500 (third) + 1,500
    clock += 24 * 3600_000 + 1
    expect((await propose({ usdAtoms: 1500_00000000n })).needs).toMatch(/rule per-write/) // the earlier ones left the window
  })

  it('counts writes the policy allowed outright: many small ones reach the window rule like one large one, on every desk', async () => {
    await store.append(
      await team.policy(
        [
          {
            id: 'window',
            kinds: ['withdraw', 'transfer'],
            minWindowUsd: '3000',
            then: { effect: 'approve', count: 1, roles: ['approver'] },
          },
          { id: 'small', kinds: ['withdraw', 'transfer'], then: { effect: 'allow' } },
          { id: 'orders', kinds: ['order'], then: { effect: 'allow' } },
        ],
        [ann],
      ),
    )
    const [danDesk, bobDesk] = await Promise.all([desk(dan), desk(bob)])
    // Three allowed withdrawals of 900 each, signed and sent: each is recorded with its bytes and outcome.
    for (let i = 0; i < 3; i++) {
      const w = withdrawal({ usdAtoms: 900_00000000n })
      expect(await danDesk.decide(w)).toEqual({ verdict: 'allow' })
      await danDesk.beforeSend(sent(w, String(1764147600000 + i)))
      await danDesk.settled(w, { state: 'accepted', finalStatus: 'ok', code: null })
    }
    const after3 = (await verifyStore(store)).state
    const recorded = [...after3.proposals.values()]
    expect(recorded.map((p) => [p.needs.count, p.rule, p.outcomes.at(-1)?.state])).toEqual([
      [0, 'small', 'accepted'],
      [0, 'small', 'accepted'],
      [0, 'small', 'accepted'],
    ])
    expect(recorded.map((p) => p.windowUsd)).toEqual([900_00000000n, 1800_00000000n, 2700_00000000n])
    // A fourth of 900 takes the account to 3,600 over 24 h: it needs an approval, decided on another desk alike.
    const fourth = withdrawal({ usdAtoms: 900_00000000n })
    expect(await danDesk.decide(fourth)).toMatchObject({ verdict: 'propose', needs: '1 approval(s) from approver (rule window)' })
    // Nothing about an allowed write waits on anyone: none in bob's queues, all in history.
    const mine = (await bobDesk.proposals()).filter((p) => p.proposal.needs.count === 0)
    expect(mine.map((p) => p.status)).toEqual(['final', 'final', 'final'])
    // An allowed write that ended not executed moved nothing: it leaves the total.
    const failed = withdrawal({ account: DEST, usdAtoms: 2500_00000000n })
    expect(await danDesk.decide(failed)).toEqual({ verdict: 'allow' })
    await danDesk.beforeSend(sent(failed, '1764147600100'))
    await danDesk.settled(failed, { state: 'rejected', finalStatus: 'failed', code: 'InsufficientBalance' })
    expect(await danDesk.decide(withdrawal({ account: DEST, usdAtoms: 2500_00000000n }))).toEqual({ verdict: 'allow' })
    // An order is not recorded (a trading desk's volume): nothing appended.
    const head = (await verifyStore(store)).state.head!.seq
    const order = withdrawal({ kind: 'order', usdAtoms: 50_000_00000000n, destination: undefined })
    expect(await danDesk.decide(order)).toEqual({ verdict: 'allow' })
    await danDesk.beforeSend(sent(order, '1764147600200'))
    expect((await verifyStore(store)).state.head!.seq).toBe(head)
  })

  it('judges an allowed write again when it is signed: another desk crossing the window since the decision stops it, nothing sent', async () => {
    await store.append(
      await team.policy(
        [
          { id: 'window', kinds: ['withdraw'], minWindowUsd: '3000', then: { effect: 'approve', count: 1, roles: ['approver'] } },
          { id: 'small', kinds: ['withdraw'], then: { effect: 'allow' } },
        ],
        [ann],
      ),
    )
    const [danDesk, catDesk] = await Promise.all([desk(dan), desk(dan, 'dan-laptop')])
    const a = withdrawal({ usdAtoms: 2000_00000000n })
    const b = withdrawal({ usdAtoms: 2000_00000000n })
    // Both allowed at decision time (each alone is under 3,000)...
    expect(await danDesk.decide(a)).toEqual({ verdict: 'allow' })
    expect(await catDesk.decide(b)).toEqual({ verdict: 'allow' })
    // ...the first signed is recorded; the second now takes the account to 4,000 and is refused before it leaves.
    await danDesk.beforeSend(sent(a, '1764147600000'))
    const err = await catDesk.beforeSend(sent(b, '1764147600001')).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(DeskError)
    expect(err).toMatchObject({ code: 'TeamPolicyChanged', message: expect.stringMatching(/rule window now says approve/) })
    const state = (await verifyStore(store)).state
    expect(state.cloids.has(b.cloid)).toBe(false)
    expect(state.proposals.get(state.cloids.get(a.cloid)!)?.signed).not.toBeNull()
  })
})

describe('TeamGate: guardrail settings changes (address book, limits, resume)', () => {
  const where = { network: 'sandbox', exchange: 'sandbox-1', preview: ['Address book: add "cold"'] }
  const addCold = { op: 'address.add' as const, label: 'cold', address: DEST, chainId: '1' }

  async function settingsPolicy(): Promise<void> {
    await team.policy(
      [
        { id: 'book', kinds: ['address_book'], then: { effect: 'approve', count: 2, roles: ['approver'] } },
        { id: 'limits-free', kinds: ['limits'], then: { effect: 'allow' } },
      ],
      [ann],
    )
    await store.append(team.entries.at(-1)!)
  }

  it('verifies the quorum before applying, applies once on the desk it names, and records the outcome', async () => {
    await settingsPolicy()
    const [danDesk, danDeskAgain, danElsewhere, bobDesk, catDesk] = await Promise.all([
      desk(dan),
      desk(dan), // the same desk (same id) through another connection: two calls racing
      desk(dan, 'dan-laptop'),
      desk(bob),
      desk(cat),
    ])
    expect(await danDesk.decideSettings({ op: 'limit.set', name: 'withdraw-limit-usd', value: '10' }, where)).toEqual({ verdict: 'allow' })
    let checked = 0
    const v = await danDesk.decideSettings(addCold, where, async () => void checked++)
    if (v.verdict !== 'propose') throw new Error('expected a proposal')
    expect(checked).toBe(1)
    // The same change again is the same proposal (no second passphrase check, no second entry).
    expect(await danDesk.decideSettings(addCold, where, async () => void checked++)).toMatchObject({ proposalId: v.proposalId })
    expect(checked).toBe(1)

    let applied = 0
    const apply = async () => void applied++
    await expect(danDesk.applySettings(v.proposalId, apply)).rejects.toMatchObject({ code: TeamErrors.refused, message: /is open/ })
    await bobDesk.approve(v.proposalId)
    await expect(danDesk.applySettings(v.proposalId, apply)).rejects.toMatchObject({ code: TeamErrors.refused, message: /is open/ })
    await catDesk.approve(v.proposalId)
    await expect(danElsewhere.applySettings(v.proposalId, apply)).rejects.toMatchObject({ code: 'TeamSettingsOtherDesk' })
    expect(applied).toBe(0)

    const race = await Promise.allSettled([danDesk.applySettings(v.proposalId, apply), danDeskAgain.applySettings(v.proposalId, apply)])
    expect(race.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    expect(race.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: TeamErrors.alreadySigned } })
    expect(applied).toBe(1)
    const p = (await verifyStore(store)).state.proposals.get(v.proposalId)!
    expect(p.signed?.nonce).toBe('none')
    expect(p.outcomes.map((o) => [o.state, o.finalStatus])).toEqual([['accepted', 'applied']])
    // Never a takeover candidate: a settings change is not re-sent to an exchange.
    expect(await danDesk.unsettled()).toEqual([])
  })

  it('finishes a change recorded as signed before the desk stopped: found in effect -> not applied again; else applied; once', async () => {
    await settingsPolicy()
    const [danDesk, bobDesk, catDesk] = await Promise.all([desk(dan), desk(bob), desk(cat)])
    const ids: string[] = []
    for (const label of ['cold', 'warm']) {
      const v = await danDesk.decideSettings({ ...addCold, label }, where)
      if (v.verdict !== 'propose') throw new Error('expected a proposal')
      await bobDesk.approve(v.proposalId)
      await catDesk.approve(v.proposalId)
      // The desk stored its `signed` entry, then stopped before applying (an honest entry, as applySettings writes it).
      const { state } = await verifyStore(store)
      const p = state.proposals.get(v.proposalId)!
      const payload = { proposal: p.id, body: canonicalJson({ action: p.action }), nonce: 'none', at: clock }
      await store.append(await signedEntry(team.teamId, lifecycleEntry(state, 'signed', payload, dan.address), [dan]))
      ids.push(p.id)
    }
    let applied = 0
    const apply = async () => void applied++
    expect(await danDesk.finishSettings(ids[0]!, async () => true, apply)).toMatchObject({
      state: 'accepted',
      finalStatus: 'applied (found in effect after a restart)',
    })
    expect(applied).toBe(0)
    expect(await danDesk.finishSettings(ids[1]!, async () => false, apply)).toMatchObject({ state: 'accepted', finalStatus: 'applied' })
    expect(applied).toBe(1)
    // Settled: nothing more to finish, nothing applied again.
    expect(await danDesk.finishSettings(ids[1]!, async () => false, apply)).toBeNull()
    expect(applied).toBe(1)
    const { state } = await verifyStore(store)
    for (const id of ids) expect(state.proposals.get(id)!.outcomes).toHaveLength(1)
  })

  it('records a change the desk refused to apply as rejected with its code, once', async () => {
    await settingsPolicy()
    const [danDesk, bobDesk, catDesk] = await Promise.all([desk(dan), desk(bob), desk(cat)])
    const v = await danDesk.decideSettings({ op: 'address.remove', label: 'cold' }, where)
    if (v.verdict !== 'propose') throw new Error('expected a proposal')
    await bobDesk.approve(v.proposalId)
    await catDesk.approve(v.proposalId)
    const out = await danDesk.applySettings(v.proposalId, async () => {
      throw new DeskError('AddressNotListed', 'no address-book entry is labelled "cold"')
    })
    expect(out).toMatchObject({ state: 'rejected', code: 'AddressNotListed' })
    const p = (await verifyStore(store)).state.proposals.get(v.proposalId)!
    expect(p.outcomes).toMatchObject([{ state: 'rejected', code: 'AddressNotListed' }])
  })

  it("refuses to apply on an approval forged in an approver's name, naming the entry; nothing applied", async () => {
    await settingsPolicy()
    const [danDesk, bobDesk] = await Promise.all([desk(dan), desk(bob)])
    const v = await danDesk.decideSettings(addCold, where)
    if (v.verdict !== 'propose') throw new Error('expected a proposal')
    await bobDesk.approve(v.proposalId)
    const { state } = await verifyStore(store)
    const head = state.head!
    const unsigned = {
      seq: head.seq + 1n,
      prev: head.digest,
      kind: 'approval' as const,
      payload: JSON.stringify({ at: clock, policyVersion: state.policy!.version, proposal: v.proposalId }),
    }
    const mallory = operator('mallory')
    const sig = (await signedEntry(state.roster!.teamId, unsigned, [mallory])).signatures[0]!
    await insertRaw({
      ...unsigned,
      digest: entryDigest(state.roster!.teamId, unsigned),
      signatures: [{ signer: cat.address.toLowerCase() as Address, signature: sig.signature }],
    })
    let applied = 0
    await expect(danDesk.applySettings(v.proposalId, async () => void applied++)).rejects.toMatchObject({
      code: TeamErrors.tampered,
      message: new RegExp(`entry ${head.seq + 1n}`),
    })
    expect(applied).toBe(0)
  })
})
