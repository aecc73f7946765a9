/**
 * Issue 23 item 2: the roster and the policy change only by entries signed by the admin quorum the
 * chain sets (genesis, then roster changes). Above one admin, a change is signed on each admin's own
 * desk (its signatures wait in the store, which no desk trusts) and enters the chain once it carries
 * the quorum; an entry without it is refused by every desk, naming it. Real PostgreSQL, two desks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import type { AlertView, TeamChangeView, TeamEvent, TeamMembersView, TeamStatusView, TeamVerifyView } from '../../../contract/types'
import { TeamStore, atHead, sealEntry, verifyStore } from '../../team'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { startDeskOnSharedSandbox, type SharedSandboxDesk } from '../../../testing/team-desks'

const CAT = '0x00000000000000000000000000000000000000ca'
const DAN = '0x00000000000000000000000000000000000000da'

describe('admin quorum above one: roster and policy changes signed desk by desk', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let store: TeamStore
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let ann = ''
  let bob = ''

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: { code: string; message: string; details?: Record<string, unknown> }) => e,
    )

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    a = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0 } })
    b = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0 } })
    const cfg = { connectionString: db.connectionString, password: db.password, passphrase: TEST_PASSPHRASE }
    for (const d of [a, b]) {
      await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
      await d.call('team.configure', cfg)
    }
    await a.call('team.init', { teamName: 'Treasury ops', name: 'Ann', passphrase: TEST_PASSPHRASE })
    ann = (await a.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    bob = (await b.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    // Quorum 1 (the genesis): Ann alone adds Bob as an admin, then raises the quorum to 2.
    await a.call('team.members.add', { address: bob, name: 'Bob', roles: ['admin', 'approver'] })
    expect(await a.call<TeamMembersView>('team.quorum', { adminQuorum: 2 })).toMatchObject({ adminQuorum: 2 })
    store = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
  })

  afterAll(async () => {
    await a?.close()
    await b?.close()
    await store?.close()
    await sandbox?.stop()
    await db?.stop()
  })

  let pendingPolicy = ''

  it("a waiting change reaches the other admin's desk by push (LISTEN/NOTIFY) with a 'needs my signature' alert; its signing reaches back", async () => {
    const EVE = '0x00000000000000000000000000000000000000ee'
    const teamAlerts = async (d: SharedSandboxDesk) =>
      (await d.call<AlertView[]>('alerts.list', {})).filter((x) => x.kind === 'team-approval')
    expect(await teamAlerts(b)).toEqual([])
    // No recovery timer runs on either desk (recoverEveryMs 0): only the store's push can bring it.
    const onB = b.nextEvent<TeamEvent>('state.team', (e) => e.changesChanged === true)
    const e = await failure(a.call('team.members.add', { address: EVE, name: 'Eve', roles: ['viewer'] }))
    expect(e).toMatchObject({ code: 'TeamChangeNeedsAdmins' })
    const changeId = (e!.details as { changeId: string }).changeId
    await onB // with no timer running, only the push brings it (how fast: the team-scale bench)

    await expect.poll(() => teamAlerts(b), { timeout: 2000, interval: 50 }).toHaveLength(1)
    const [alert] = await teamAlerts(b)
    expect(alert).toMatchObject({ kind: 'team-approval', title: 'Needs your signature', account: null, acknowledgedAt: null })
    expect(alert!.message).toContain(`add Eve ${EVE} as viewer`)
    expect(alert!.message).toContain('signed by Ann; 1 of 2 admin signatures')
    expect(alert!.message).toContain(changeId)
    // Ann signed it herself: nothing waits on her.
    expect(await teamAlerts(a)).toEqual([])

    // Bob signs on his desk: the change leaves the waiting list and Ann's desk hears that by push too.
    const onA = a.nextEvent<TeamEvent>('state.team', (x) => x.changesChanged === true)
    expect(await b.call('team.changes.sign', { id: changeId })).toEqual({ applied: true, signatures: 2, quorum: 2 })
    await onA
    expect(await a.call<TeamChangeView[]>('team.changes')).toEqual([])
    // Another push re-reads the list: the alert stays one (once per change).
    expect(await teamAlerts(b)).toHaveLength(1)
  })

  it('one admin signing a roster change is not enough: it waits, typed, and the roster is unchanged on every desk', async () => {
    const e = await failure(a.call('team.members.add', { address: CAT, name: 'Cat', roles: ['approver'] }))
    expect(e).toMatchObject({ code: 'TeamChangeNeedsAdmins', details: { signatures: 1, quorum: 2 } })
    for (const d of [a, b]) expect((await d.call<TeamMembersView>('team.members')).members.map((m) => m.address)).not.toContain(CAT)

    const [change] = await b.call<TeamChangeView[]>('team.changes')
    expect(change).toMatchObject({
      id: (e!.details as { changeId: string }).changeId,
      kind: 'roster',
      summary: [`add Cat ${CAT} as approver`],
      signers: [{ address: ann, name: 'Ann' }],
      quorum: 2,
      stale: null,
      canSign: true,
    })
    // Ann signing again does not count twice.
    expect(await a.call('team.changes.sign', { id: change!.id })).toEqual({ applied: false, signatures: 1, quorum: 2 })
    expect((await a.call<TeamChangeView[]>('team.changes'))[0]).toMatchObject({ signedByMe: true, canSign: false })
  })

  it('a second admin signs it on their own desk: the change enters the chain with both signatures, every desk sees it', async () => {
    const [change] = await b.call<TeamChangeView[]>('team.changes')
    expect(await b.call('team.changes.sign', { id: change!.id })).toEqual({ applied: true, signatures: 2, quorum: 2 })
    await expect
      .poll(async () => (await a.call<TeamMembersView>('team.members')).members.find((m) => m.address === CAT)?.roles, {
        timeout: 2000,
        interval: 50,
      })
      .toEqual(['approver'])
    expect(await a.call<TeamChangeView[]>('team.changes')).toEqual([])
    const rows = await store.readLog(0n)
    const last = rows.at(-1)!
    expect(last.kind).toBe('roster')
    expect((JSON.parse(last.signatures) as { signer: string }[]).map((s) => s.signer).sort()).toEqual([ann, bob].sort())
    expect(await a.call<TeamVerifyView>('team.verify')).toMatchObject({ ok: true, broken: null })
  })

  it('a change made on an older roster or policy is stale: refused typed and dropped, never appended', async () => {
    const e1 = await failure(a.call('team.policy.set', { rules: [{ id: 'all', then: { effect: 'allow' } }] }))
    expect(e1).toMatchObject({ code: 'TeamChangeNeedsAdmins' })
    pendingPolicy = (e1!.details as { changeId: string }).changeId
    // Meanwhile Bob and Ann change the roster: the policy change's basis is no longer the last change.
    const e2 = await failure(b.call('team.members.add', { address: DAN, name: 'Dan', roles: ['viewer'] }))
    await a.call('team.changes.sign', { id: (e2!.details as { changeId: string }).changeId })
    const listed = (await b.call<TeamChangeView[]>('team.changes')).find((c) => c.id === pendingPolicy)
    expect(listed?.stale).toMatch(/changed since/)
    expect(listed?.canSign).toBe(false)
    const head = (await store.readLog(0n)).length
    expect(await failure(b.call('team.changes.sign', { id: pendingPolicy }))).toMatchObject({ code: 'TeamChangeStale' })
    expect(await store.readLog(0n)).toHaveLength(head)
    expect((await b.call<TeamChangeView[]>('team.changes')).some((c) => c.id === pendingPolicy)).toBe(false)
  })

  it('an entry appended straight into the database with one admin signature is refused by every desk, naming it', async () => {
    // The database attacker's shortcut: Ann's lone signature of a waiting change, appended as if it had the quorum.
    const e = await failure(a.call('team.members.roles', { address: DAN, roles: ['admin'] }))
    const changeId = (e!.details as { changeId: string }).changeId
    const pending = (await store.changes()).find((c) => c.id === changeId)!
    expect(pending.signatures).toHaveLength(1)
    const { state } = await verifyStore(store)
    const forged = sealEntry(state.roster!.teamId, atHead(state, { kind: 'roster', payload: pending.payload }), pending.signatures)
    await store.append(forged)

    const reason = '1 admin signature(s), the admin quorum is 2 (a roster change needs it)'
    expect(await b.call<TeamVerifyView>('team.verify')).toMatchObject({ ok: false, broken: { seq: forged.seq.toString(), reason } })
    for (const d of [a, b])
      await expect.poll(async () => (await d.call<TeamStatusView>('team.status')).state, { timeout: 3000, interval: 50 }).toBe('tampered')
    expect((await b.call<TeamStatusView>('team.status')).broken).toEqual({ seq: forged.seq.toString(), reason })
    // Dan did not become an admin anywhere: the refused entry changed nothing.
    const verified = await verifyStore(store)
    expect(verified.state.roster!.members.get(DAN)?.roles).toEqual(['viewer'])
  })
})
