/**
 * Issue 32: no desk holds a whole owner key. Two desks on one PostgreSQL and one sandbox: A (admin,
 * trader, holds the sandbox keys) puts an account under team custody, 2 of 2 members' shares plus an
 * offline recovery share; the key leaves A's vault. An approved transfer executes exactly once, A's
 * desk combining its own share with the one B's desk released for those exact bytes. With B's desk
 * down nothing is signed (0 transactions); A alone, with its vault, its passphrase and the database,
 * cannot rebuild the key; a release copied onto other bytes is refused. Judged by the sandbox's
 * ground truth.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TeamCustodySplitView, TeamCustodyView, TeamProposalView, WriteOutcome } from '../../../contract/types'
import { TeamStore, combineKey, parseRecoveryShare, verifyStore } from '../../team'
import { parseEnvelope, shareAad } from '../../vault'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { COLD_DEST, shortCoolingOff, startDeskOnSharedSandbox, type SharedSandboxDesk } from '../../../testing/team-desks'

const HELD = devOwner(0).address.toLowerCase()
const TO = devOwner(2).address.toLowerCase()

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code: string; message: string; details?: Record<string, unknown> }) => e,
  )

describe('team custody: split owner keys, released share by share (real PostgreSQL, sandbox ground truth)', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let ann = ''
  let bob = ''
  const dir = mkdtempSync(join(tmpdir(), 'desk-custody-'))
  const truth = () => sandbox.trading.groundTruth()

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    a = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0, releaseWaitMs: 3000 } })
    b = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0 } })
    for (const d of [a, b]) await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await a.call('accounts.importSandboxKeys')
    a.autoConfirm()
    shortCoolingOff(a, sandbox)
    await a.call('addresses.add', { label: 'cold', address: COLD_DEST, chainId: '1', passphrase: TEST_PASSPHRASE })
    const cfg = { connectionString: db.connectionString, password: db.password, passphrase: TEST_PASSPHRASE }
    for (const d of [a, b]) await d.call('team.configure', cfg)
    await a.call('team.init', { teamName: 'Treasury ops', name: 'Ann', passphrase: TEST_PASSPHRASE })
    ann = (await a.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    bob = (await b.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    await a.call('team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
    await a.call('team.policy.set', {
      rules: [
        { id: 'transfer-4eyes', kinds: ['transfer'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'keys-4eyes', kinds: ['agent_approve', 'agent_revoke'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
    await new Promise((r) => setTimeout(r, 1600)) // the address-book entry's cooling-off
  })

  afterAll(async () => {
    await a?.close()
    await b?.close().catch(() => {})
    await sandbox?.stop()
    await db?.stop()
  })

  /** A transfer proposed on A and approved on B; its id and cloid. */
  async function approvedTransfer(amount: string): Promise<{ id: string; cloid: string }> {
    const out = await a.call<WriteOutcome>('transfer.submit', { from: HELD, to: TO, assetId: 1, amount })
    expect(out.submission.state).toBe('proposed')
    const id = out.proposalId!
    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).some((p) => p.id === id), {
        timeout: 5000,
      })
      .toBe(true)
    await b.call('team.approve', { id })
    return { id, cloid: out.submission.cloid }
  }

  it("A splits the key 2 of 2 members plus an offline share: the chain names the holders, the key leaves A's vault, export is refused", async () => {
    // Each holder's desk published its identity key when it opened the store.
    await expect
      .poll(
        async () => {
          const s = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
          try {
            return (await s.custody.identityKeys([ann, bob])).size
          } finally {
            await s.close()
          }
        },
        { timeout: 5000 },
      )
      .toBe(2)
    const file = join(dir, 'recovery.json')
    const r = await a.call<TeamCustodySplitView>('team.custody.split', {
      account: HELD,
      holders: [ann, bob],
      threshold: 2,
      recoveryFile: file,
    })
    expect(r).toMatchObject({ account: HELD, version: 1, threshold: 2, applied: true })
    expect(parseRecoveryShare(readFileSync(file, 'utf8')).meta.checksum).toBe(r.recoveryChecksum)
    const accounts = await a
      .call<{ address: string; watchOnly: boolean; teamHeld?: boolean }[]>('vault.keys')
      .then((v) => (v as unknown as { accounts: { address: string; watchOnly: boolean; teamHeld?: boolean }[] }).accounts)
    expect(accounts.find((x) => x.address.toLowerCase() === HELD)).toMatchObject({ watchOnly: false, teamHeld: true })
    const status = await b.call<TeamCustodyView[]>('team.custody.status')
    expect(status).toEqual([expect.objectContaining({ account: HELD, threshold: 2, recovery: true, lastRelease: null })])
    const e = await failure(
      a.core
        .dispatch(
          'vault.exportKeystore',
          {
            address: HELD,
            file: join(dir, 'k.json'),
            force: false,
            vaultPassphrase: { value: TEST_PASSPHRASE },
            keystorePassphrase: { value: 'keystore passphrase 1234' },
            kdf: { kdf: 'pbkdf2' },
          },
          { host: 'cli' },
        )
        .then((x) => (x.ok ? x.value : Promise.reject(x.error))),
    )
    expect(e).toMatchObject({ code: 'TeamHeldKey' })
    expect(existsSync(join(dir, 'k.json'))).toBe(false)
  })

  it('an approved transfer executes exactly once: A combines its share with the one B released for those bytes', async () => {
    const p = await approvedTransfer('3')
    const done = await a.call<WriteOutcome>('team.execute', { id: p.id })
    expect(done.proposalId).toBe(p.id)
    expect(truth().filter((x) => x.cloid === p.cloid)).toHaveLength(1)
    const status = await a.call<TeamCustodyView[]>('team.custody.status')
    expect(status[0]!.lastRelease).toMatchObject({ holder: bob, proposalId: p.id })
  })

  it('a withdrawal the policy allows outright is recorded before signing; B co-signs it only with its co-signer rule on', async () => {
    const w = { account: HELD, assetId: 1, amount: '5', dstChainId: '1', dstAddress: COLD_DEST }
    // Off by default: B releases nothing for a write no one approved; nothing is signed or sent.
    const before = truth().length
    const e = await failure(a.call('withdraw.submit', w))
    expect(e?.code).toMatch(/CustodySharesMissing|WriteNotSent|SigningFailed/)
    expect(truth()).toHaveLength(before)
    await b.call('team.custody.cosign', { on: true })
    const out = await a.call<WriteOutcome>('withdraw.submit', w)
    expect(truth().filter((x) => x.cloid === out.submission.cloid)).toHaveLength(1)
  })

  it('an API key approval (another EIP-712 owner write, its key generated at signing) executes once after approval and release', async () => {
    const slots = await a.call<{ slot: number; agent: string | null }[]>('agents.list', { owner: HELD })
    const slot = slots.find((s) => s.agent === null)!.slot
    const e = await failure(a.call('agents.approve', { owner: HELD, slot }))
    const id = e!.details!.proposalId as string
    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).some((p) => p.id === id), {
        timeout: 5000,
      })
      .toBe(true)
    await b.call('team.approve', { id })
    await a.call('team.execute', { id })
    await expect
      .poll(
        async () =>
          (await a.call<{ slot: number; agent: string | null }[]>('agents.list', { owner: HELD })).find((s) => s.slot === slot)?.agent ??
          null,
        {
          timeout: 10_000,
        },
      )
      .toMatch(/^0x[0-9a-f]{40}$/)
  })

  it("A alone (its vault, its passphrase, the database) cannot rebuild the key: its own share and B's sealed one do not combine", async () => {
    const store = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
    try {
      const { state } = await verifyStore(store)
      const teamId = state.roster!.teamId
      const rows = await store.custody.shares(HELD, 1)
      const vault = a.core.vault.requireUnlocked()
      const mine = rows.find((r) => r.holder === ann)!
      const own = vault.openForIdentity(
        parseEnvelope(mine.envelope),
        shareAad({ teamId, account: HELD, version: 1, index: mine.index, holder: ann }),
      )
      expect(own).not.toBeNull()
      const bobs = rows.find((r) => r.holder === bob)!
      // B's share is sealed to B's identity key: A's vault cannot open it, whatever it binds it to.
      expect(
        vault.openForIdentity(
          parseEnvelope(bobs.envelope),
          shareAad({ teamId, account: HELD, version: 1, index: bobs.index, holder: bob }),
        ),
      ).toBeNull()
      expect(
        vault.openForIdentity(
          parseEnvelope(bobs.envelope),
          shareAad({ teamId, account: HELD, version: 1, index: bobs.index, holder: ann }),
        ),
      ).toBeNull()
      expect(await failure(combineKey([own!], HELD))).toMatchObject({ code: 'CustodySharesMissing' })
      own!.fill(0)
    } finally {
      await store.close()
    }
  })

  it("with B's desk down nothing is signed (0 transactions); a release copied onto other bytes is refused", async () => {
    const p = await approvedTransfer('4')
    // Replay: B's earlier release, copied under a request for these new bytes, must not open or verify.
    await b.close()
    const store = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
    try {
      const earlier = await store.custody.requests(new Date(0))
      const old = earlier[0]!
      const [release] = await store.custody.releases(old.id)
      expect(release?.holder).toBe(bob)
      const e = a.call('team.execute', { id: p.id })
      // Once A's request for the new bytes is stored, the old release is copied onto it.
      await expect.poll(async () => (await store.custody.requests(new Date(0))).length, { timeout: 5000 }).toBe(earlier.length + 1)
      const fresh = (await store.custody.requests(new Date(0))).find((q) => !earlier.some((x) => x.id === q.id))!
      await store.custody.putRelease({ ...release!, requestId: fresh.id })
      expect(await failure(e)).toMatchObject({ code: expect.stringMatching(/CustodySharesMissing|WriteNotSent/) })
      // Named in the chain: the copied release was refused, nothing was signed.
      const { state } = await verifyStore(store)
      expect(state.custodyRefusals.at(-1)).toMatchObject({
        by: ann,
        side: 'sign',
        code: 'CustodySharesMissing',
        request: fresh.id,
        reason: expect.stringMatching(/release refused: not signed by its holder for this request/),
      })
    } finally {
      await store.close()
    }
    expect(truth().filter((x) => x.cloid === p.cloid)).toHaveLength(0)
  })
})
