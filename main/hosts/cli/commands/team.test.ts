/** `desk team …` in-process against a real PostgreSQL and the sandbox: desk B (the CLI) approves what desk A (an app core) proposed. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox/index'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TeamProposalView, WriteOutcome } from '../../../contract/types'
import { sandboxNetwork } from '../../../core/config/networks'
import { SettingsStore } from '../../../core/config/settings'
import { Vault, vaultPath } from '../../../core/vault'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { shortCoolingOff, startDeskOnSharedSandbox, type SharedSandboxDesk } from '../../../testing/team-desks'
import { discoverGroups } from '../discover'
import { runCli, type GroupRef } from '../router'
import { capturedIo } from '../testing/captured-io'

const DEST = '0x52908400098527886E0F7030069857D2E4169EE7'
let db: PostgresHandle
let sb: SandboxHandle
let a: SharedSandboxDesk
let dir: string
let groups: GroupRef[]
let stopConfirm: () => void

async function desk(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = capturedIo()
  const code = await runCli([...args, '--data-dir', join(dir, 'data'), '--passphrase-file', join(dir, 'pass')], groups, io)
  return { code, out: out(), err: err() }
}

beforeAll(async () => {
  db = await startPostgres()
  sb = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
  a = await startDeskOnSharedSandbox(sb)
  await a.call('vault.create', { passphrase: TEST_PASSPHRASE })
  await a.call('accounts.importSandboxKeys')
  stopConfirm = a.autoConfirm()
  shortCoolingOff(a, sb)
  await a.call('addresses.add', { label: 'cold', address: DEST, chainId: '1', passphrase: TEST_PASSPHRASE })
  await a.call('team.configure', { connectionString: db.connectionString, password: db.password, passphrase: TEST_PASSPHRASE })
  await a.call('team.init', { teamName: 'Ops', name: 'Ann', passphrase: TEST_PASSPHRASE })

  dir = mkdtempSync(join(tmpdir(), 'desk-team-cli-'))
  writeFileSync(join(dir, 'pass'), TEST_PASSPHRASE + '\n')
  writeFileSync(join(dir, 'dbpass'), db.password + '\n', { mode: 0o600 })
  const data = join(dir, 'data')
  new SettingsStore(data).saveNetwork({
    ...sandboxNetwork({ trading: Number(new URL(sb.tradingUrl).port), earn: Number(new URL(sb.earnUrl).port) }),
    infoRatePerSec: 100,
    tradeRatePerSec: 100,
    strictLimits: false,
  })
  const v = await Vault.create({ path: vaultPath(data), passphrase: TEST_PASSPHRASE, scrypt: { n: 16384, r: 8, p: 1 }, autoLockMs: null })
  v.lock()
  groups = await discoverGroups()
  await new Promise((r) => setTimeout(r, 1600)) // the address book entry's cooling-off
})

afterAll(async () => {
  stopConfirm?.()
  await a?.close()
  await sb?.stop()
  await db?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('desk team', () => {
  it('configure, join; proposals --json lists what needs me; approve; A executes once', async () => {
    const off = await desk('team', 'status', '--json')
    expect(JSON.parse(off.out)).toMatchObject({ configured: false, state: 'off' })

    const conf = await desk('team', 'configure', db.connectionString, '--password-file', join(dir, 'dbpass'), '--json')
    expect(conf.code).toBe(0)
    expect(JSON.parse(conf.out)).toMatchObject({ configured: true, state: 'live', teamName: 'Ops' })
    expect(conf.out).not.toContain(db.password)

    const joined = await desk('team', 'join', '--json')
    const { address } = JSON.parse(joined.out) as { address: string }
    expect(address).toMatch(/^0x[0-9a-f]{40}$/)
    await a.call('team.members.add', { address, name: 'Bob', roles: ['approver'] })
    await a.call('team.policy.set', {
      rules: [
        { id: 'withdraw-4eyes', kinds: ['withdraw'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'limits-loosen', kinds: ['limits'], direction: 'loosen', then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })

    const members = await desk('team', 'members')
    expect(members.out).toContain('Bob')
    expect(members.out).toContain('(me)')

    const proposed = await a.call<WriteOutcome>('withdraw.submit', {
      account: devOwner(0).address.toLowerCase(),
      assetId: 1,
      amount: '7',
      dstChainId: '1',
      dstAddress: DEST,
    })
    const id = proposed.proposalId!

    const listed = await desk('team', 'proposals', '--json')
    expect(listed.code).toBe(0)
    const list = JSON.parse(listed.out) as TeamProposalView[]
    expect(list.map((p) => p.id)).toEqual([id])
    expect(list[0]).toMatchObject({ kind: 'withdraw', status: 'open', canApprove: true, initiator: { name: 'Ann' } })

    // A rejection without a reason is a usage error; nothing is written.
    const noReason = await desk('team', 'reject', id)
    expect(noReason.code).not.toBe(0)

    // Approving is a deliberate act: without a terminal or --yes it is refused, nothing approved.
    const unconfirmed = await desk('team', 'approve', id.slice(0, 12), '--json')
    expect(unconfirmed.code).not.toBe(0)
    const approved = await desk('team', 'approve', id.slice(0, 12), '--yes', '--json')
    expect(approved.code).toBe(0)
    expect(JSON.parse(approved.out)).toMatchObject({ id, status: 'approved', approvals: [{ name: 'Bob', counts: true }] })
    const again = await desk('team', 'approve', id, '--yes', '--json')
    expect(again.code).not.toBe(0)
    expect(again.err).toContain('TeamProposalRefused')

    const before = sb.trading.groundTruth().length
    const done = await a.call<WriteOutcome>('team.execute', { id })
    expect(done.submission.state).toBe('accepted')
    expect(sb.trading.groundTruth()).toHaveLength(before + 1)

    const history = await desk('team', 'proposals', '--view', 'history', '--json')
    expect((JSON.parse(history.out) as TeamProposalView[]).find((p) => p.id === id)).toMatchObject({
      status: 'final',
      outcome: { state: 'accepted' },
    })
    const verified = await desk('team', 'verify', '--json')
    expect(verified.code).toBe(0)
    expect(JSON.parse(verified.out)).toMatchObject({ ok: true, broken: null })
  })

  it('quorum 2: a roster change made on A waits; `team changes` lists it and `team changes sign` (a prefix) applies it', async () => {
    const bob = (JSON.parse((await desk('team', 'join', '--json')).out) as { address: string }).address
    await a.call('team.members.roles', { address: bob, roles: ['admin', 'approver'] })
    await a.call('team.quorum', { adminQuorum: 2 })
    const cat = '0x00000000000000000000000000000000000000ca'
    await expect(a.call('team.members.add', { address: cat, name: 'Cat', roles: ['viewer'] })).rejects.toMatchObject({
      code: 'TeamChangeNeedsAdmins',
    })

    const listed = await desk('team', 'changes')
    expect(listed.code).toBe(0)
    expect(listed.out).toMatch(/roster\s+1\/2 admin signature\(s\) \(Ann\)\s+you may sign/)
    expect(listed.out).toContain(`add Cat ${cat} as viewer`)
    const [change] = JSON.parse((await desk('team', 'changes', '--json')).out) as { id: string }[]
    const signed = await desk('team', 'changes', 'sign', change!.id.slice(0, 14), '--json')
    expect(signed.code).toBe(0)
    expect(JSON.parse(signed.out)).toEqual({ applied: true, signatures: 2, quorum: 2 })
    const members = JSON.parse((await desk('team', 'members', '--json')).out) as { adminQuorum: number; members: { address: string }[] }
    expect(members.adminQuorum).toBe(2)
    expect(members.members.map((m) => m.address)).toContain(cat)
    expect(JSON.parse((await desk('team', 'changes', '--json')).out)).toEqual([])

    // Bob alone lowering the quorum: signed, waiting (exit code non-zero, typed), nothing applied.
    const lone = await desk('team', 'quorum', '1')
    expect(lone.code).not.toBe(0)
    expect(lone.err).toContain('TeamChangeNeedsAdmins')
    expect((JSON.parse((await desk('team', 'members', '--json')).out) as { adminQuorum: number }).adminQuorum).toBe(2)
  })

  it('init, policy, show, reject, export: each with --json; refusals typed with a non-zero exit', async () => {
    // init on a store that already holds a team: refused, typed, nothing written.
    const init = await desk('team', 'init', 'Another', '--name', 'Bob', '--json')
    expect(init.code).not.toBe(0)
    expect(init.err).toContain('TeamAlreadyInitialised')
    expect(JSON.parse((await desk('team', 'members', '--json')).out)).toMatchObject({ adminQuorum: 2 })

    const policy = await desk('team', 'policy', '--json')
    expect(policy.code).toBe(0)
    expect(JSON.parse(policy.out)).toMatchObject({
      version: 1,
      rules: [{ id: 'withdraw-4eyes' }, { id: 'limits-loosen', kinds: ['limits'], direction: 'loosen' }, { id: 'rest' }],
    })
    const policyText = (await desk('team', 'policy')).out
    expect(policyText).toContain('withdraw-4eyes')
    expect(policyText).toMatch(/limits-loosen\s+kind limits, loosening only -> needs 1 approval\(s\) from approver/)
    // Bob alone writing a new policy version under an admin quorum of 2: signed, waiting, typed.
    writeFileSync(join(dir, 'rules.json'), JSON.stringify([{ id: 'all', then: { effect: 'allow' } }]))
    const set = await desk('team', 'policy', 'set', '--file', join(dir, 'rules.json'), '--json')
    expect(set.code).not.toBe(0)
    expect(set.err).toContain('TeamChangeNeedsAdmins')
    expect(JSON.parse((await desk('team', 'policy', '--json')).out)).toMatchObject({ version: 1 })

    const proposed = await a.call<WriteOutcome>('withdraw.submit', {
      account: devOwner(0).address.toLowerCase(),
      assetId: 1,
      amount: '6',
      dstChainId: '1',
      dstAddress: DEST,
    })
    const id = proposed.proposalId!
    const shown = await desk('team', 'show', id.slice(0, 12), '--json')
    expect(shown.code).toBe(0)
    expect(JSON.parse(shown.out)).toMatchObject({ id, status: 'open', channel: 'withdraw.submit' })
    const rejected = await desk('team', 'reject', id, '--reason', 'not this week', '--json')
    expect(rejected.code).toBe(0)
    expect(JSON.parse(rejected.out)).toMatchObject({ id, status: 'rejected' })
    // Executing a rejected proposal: refused, typed; the exchange holds nothing for its cloid.
    const before = sb.trading.groundTruth().length
    await expect(a.call('team.execute', { id })).rejects.toMatchObject({ code: expect.stringMatching(/WriteBlocked|TeamProposalRefused/) })
    expect(sb.trading.groundTruth()).toHaveLength(before)

    const csv = join(dir, 'team.csv')
    const exported = await desk('team', 'export', '--out', csv, '--json')
    expect(exported.code).toBe(0)
    expect(JSON.parse(exported.out)).toMatchObject({ file: csv })
    expect(readFileSync(csv, 'utf8')).toMatch(/^seq,hash,/)
  })
})
