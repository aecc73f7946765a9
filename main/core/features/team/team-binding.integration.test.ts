/**
 * Issue 30.3: one operator cannot leave the team from their own desk. A vault that joined a team is
 * bound to it (binding.ts, sealed in the vault): with team.json moved away, with the vault copied to a
 * fresh data directory, or pointed at another store holding a one-person allow-all team, every write
 * is refused and nothing reaches the exchange. Exporting a key, changing the passphrase and the
 * other custody changes are team-policy writes, recorded in the chain. A member leaves only after
 * the admins removed them. Real PostgreSQL, the sandbox's ground truth.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TeamProposalView, TeamStatusView, WriteOutcome } from '../../../contract/types'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { COLD_DEST, startDeskOnSharedSandbox, startKeyedAndApprover, type SharedSandboxDesk } from '../../../testing/team-desks'
import { verifyStore, TeamStore } from '../../team'

const OWNER = devOwner(0).address.toLowerCase()
const WITHDRAW = { account: OWNER, assetId: 1, amount: '5', dstChainId: '1', dstAddress: COLD_DEST }
const TRANSFER = { from: OWNER, to: devOwner(2).address.toLowerCase(), assetId: 1, amount: '2' }

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code: string; message: string; details?: Record<string, unknown> }) => e,
  )

describe('a vault bound to its team (real PostgreSQL, sandbox ground truth)', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let bob = ''
  let closePair: () => Promise<void>
  const extra: SharedSandboxDesk[] = []
  const truth = () => sandbox.trading.groundTruth()
  const cfg = (connectionString = db.connectionString) => ({ connectionString, password: db.password, passphrase: TEST_PASSPHRASE })

  /** A desk started on `dataDir` (a restart, or a copied vault), unlocked. */
  async function deskOn(dataDir: string): Promise<SharedSandboxDesk> {
    const d = await startDeskOnSharedSandbox(sandbox, { dataDir, team: { recoverEveryMs: 0 } })
    extra.push(d)
    await d.call('vault.unlock', { passphrase: TEST_PASSPHRASE })
    d.autoConfirm()
    return d
  }

  /** Every write kind tried is refused with `code`, and the exchange holds nothing new. */
  async function refusesWrites(d: SharedSandboxDesk, code: RegExp, withdrawCode = code): Promise<void> {
    const before = truth().length
    for (const [channel, args, expected] of [
      ['transfer.submit', TRANSFER, code],
      ['withdraw.submit', WITHDRAW, withdrawCode],
    ] as const) {
      const e = await failure(d.call(channel, args))
      expect(e, channel).not.toBeNull()
      expect(`${e!.code} ${String(e!.details?.code ?? '')}`).toMatch(expected)
    }
    expect(truth()).toHaveLength(before)
  }

  async function exportKey(d: SharedSandboxDesk, file: string) {
    const r = await d.core.dispatch(
      'vault.exportKeystore',
      {
        address: OWNER,
        file,
        force: true,
        vaultPassphrase: { value: TEST_PASSPHRASE },
        keystorePassphrase: { value: 'keystore passphrase 1234' },
        kdf: { kdf: 'pbkdf2' },
      },
      { host: 'cli' },
    )
    if (!r.ok) throw Object.assign(new Error(`${r.error.code}: ${r.error.message}`), { code: r.error.code, details: r.error.details })
    return r.value
  }

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    ;({ a, b, bob, close: closePair } = await startKeyedAndApprover(sandbox, { a: { recoverEveryMs: 0 }, b: { recoverEveryMs: 0 } }))
    for (const d of [a, b]) await d.call('team.configure', cfg())
    await a.call('team.init', { teamName: 'Treasury ops', name: 'Ann', passphrase: TEST_PASSPHRASE })
    await a.call('team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
    await a.call('team.policy.set', {
      rules: [
        { id: 'withdraw-4eyes', kinds: ['withdraw'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'export-4eyes', kinds: ['key_export'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
  })

  afterAll(async () => {
    await closePair?.()
    for (const d of extra) await d.core.close().catch(() => {})
    await sandbox?.stop()
    await db?.stop()
  })

  it('a write right after unlocking waits for the team store to open (the CLI without the app, the app after unlock)', async () => {
    await a.call('vault.lock')
    await a.call('vault.unlock', { passphrase: TEST_PASSPHRASE })
    // At once: the store is still opening in the background.
    const t = await a.call<WriteOutcome>('transfer.submit', TRANSFER)
    expect(truth().filter((x) => x.cloid === t.submission.cloid)).toHaveLength(1)
  })

  it('team.json moved out of the data directory: after a restart every write is refused, nothing reaches the exchange', async () => {
    await a.core.close()
    renameSync(join(a.dataDir, 'team.json'), join(a.dataDir, 'team.json.away'))
    const alone = await deskOn(a.dataDir)
    expect(await alone.call<TeamStatusView>('team.status')).toMatchObject({ configured: false, state: 'tampered' })
    await refusesWrites(alone, /TeamBindingMismatch/)
    await alone.core.close()
    renameSync(join(a.dataDir, 'team.json.away'), join(a.dataDir, 'team.json'))
    a = await deskOn(a.dataDir)
    await expect.poll(async () => (await a.call<TeamStatusView>('team.status')).state, { timeout: 5000, interval: 50 }).toBe('live')
    const t = await a.call<WriteOutcome>('transfer.submit', TRANSFER) // allowed by the team, recorded
    expect(truth().filter((x) => x.cloid === t.submission.cloid)).toHaveLength(1)
  })

  it('vault.json copied to a fresh data directory: every write is refused there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'desk-copied-'))
    copyFileSync(join(a.dataDir, 'vault.json'), join(dir, 'vault.json'))
    const copy = await deskOn(dir)
    // The copy has no address book (its own data directory's file): the withdrawal is refused by that first.
    await refusesWrites(copy, /TeamBindingMismatch/, /TeamBindingMismatch|DestinationNotAllowed/)
    await copy.core.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('pointed at another store holding a one-person allow-all team: init is refused, that team is refused, nothing is sent', async () => {
    const admin = new pg.Client(db.adminConfig)
    await admin.connect()
    await admin.query('CREATE DATABASE team_other OWNER desk')
    await admin.end()
    const other = db.connectionString.replace(/\/team$/, '/team_other')
    // Someone else's desk starts a one-person team there, allowing everything.
    const mallory = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0 } })
    extra.push(mallory)
    await mallory.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await mallory.call('team.configure', cfg(other))
    await mallory.call('team.init', { teamName: 'Me alone', name: 'Mal', passphrase: TEST_PASSPHRASE })
    await mallory.call('team.policy.set', { rules: [{ id: 'all', then: { effect: 'allow' } }] })

    await a.call('team.configure', cfg(other))
    expect(await failure(a.call('team.init', { teamName: 'Mine', name: 'Ann', passphrase: TEST_PASSPHRASE }))).toMatchObject({
      code: 'TeamAlreadyJoined',
    })
    await refusesWrites(a, /TeamChainTampered|TeamBindingMismatch/)
    const s = await a.call<TeamStatusView>('team.status')
    expect(s.state).toBe('tampered')
    // Back on its own team's store, it works again.
    await a.call('team.configure', cfg())
    await expect.poll(async () => (await a.call<TeamStatusView>('team.status')).state, { timeout: 5000, interval: 50 }).toBe('live')
  })

  it('exporting a key is a team-policy write: proposed, then after the approval exported once and recorded in the chain', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'desk-export-')), 'key.json')
    const e = await failure(exportKey(a, file))
    expect(e).toMatchObject({ code: 'WriteProposed' })
    expect(existsSync(file)).toBe(false)
    const id = e!.details!.proposalId as string
    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).some((p) => p.id === id), {
        timeout: 5000,
      })
      .toBe(true)
    await b.call('team.approve', { id })
    expect(await exportKey(a, file)).toMatchObject({ address: OWNER })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ version: 3 })
    const store = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
    try {
      const p = (await verifyStore(store)).state.proposals.get(id)!
      expect(p).toMatchObject({ kind: 'key_export', account: OWNER })
      expect(p.signed).not.toBeNull()
      expect(p.outcomes.map((o) => o.state)).toEqual(['accepted'])
    } finally {
      await store.close()
    }
  })

  it('an approver changing their vault passphrase is recorded too; a member leaves only after the admins removed them', async () => {
    const next = `${TEST_PASSPHRASE} and more`
    await b.call('vault.changePassphrase', { current: TEST_PASSPHRASE, next })
    await b.call('vault.changePassphrase', { current: next, next: TEST_PASSPHRASE })
    const history = await a.call<TeamProposalView[]>('team.proposals', { view: 'history' })
    expect(history.filter((p) => p.kind === 'vault_passphrase')).toHaveLength(2)

    expect(await failure(b.call('team.leave', { passphrase: TEST_PASSPHRASE }))).toMatchObject({ code: 'TeamProposalRefused' })
    await a.call('team.members.remove', { address: bob })
    await expect.poll(async () => (await b.call<TeamStatusView>('team.status')).me.roles, { timeout: 5000, interval: 50 }).toEqual([])
    const left = await b.call<TeamStatusView>('team.leave', { passphrase: TEST_PASSPHRASE })
    expect(left).toMatchObject({ configured: false, state: 'off' })
    expect(existsSync(join(b.dataDir, 'team.json'))).toBe(false)
  })
})
