/**
 * Test support for the team takeover tests (features/team/team-takeover, team-earn-takeover): three
 * desks on one sandbox and one real PostgreSQL team store, the desk that dies reopened on its data
 * directory. Kept apart from team-desks.ts, which a bundled desk process imports too (the SIGKILL
 * test's child): this file uses vitest's `expect`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { SandboxHandle } from '../../sandbox'
import type { TeamProposalView, TeamStatusView } from '../contract/types'
import { TeamStore, verifyStore, type Proposal } from '../core/team'
import { TEST_PASSPHRASE } from './desk-on-sandbox'
import type { PostgresHandle } from './postgres'
import { COLD_DEST, shortCoolingOff, startDeskOnSharedSandbox, type SharedSandboxDesk } from './team-desks'

type TeamTimers = { proposalTtlMs?: number; leaseMs?: number; recoverEveryMs?: number }

/** A desk on its own data directory, dropped ("killed") and reopened by the test. */
export interface ReopenableDesk {
  readonly dataDir: string
  /** The running desk, null while it is dead. */
  readonly desk: SharedSandboxDesk | null
  /** Starts the desk; after the first start it unlocks the vault and waits until its team link is live. Confirmations approved. */
  open(): Promise<SharedSandboxDesk>
  /** Drops the desk where it stands (its data directory stays). */
  kill(): Promise<void>
  /** Kills it if running and removes its data directory. */
  dispose(): Promise<void>
}

export function reopenableDesk(sandbox: SandboxHandle, opts: { dirPrefix: string; team: TeamTimers }): ReopenableDesk {
  const dataDir = mkdtempSync(join(tmpdir(), opts.dirPrefix))
  let created = false
  let desk: SharedSandboxDesk | null = null
  let stopConfirm: (() => void) | null = null
  return {
    dataDir,
    get desk() {
      return desk
    },
    async open() {
      const d = await startDeskOnSharedSandbox(sandbox, { dataDir, team: opts.team })
      if (created) {
        await d.call('vault.unlock', { passphrase: TEST_PASSPHRASE })
        await expect.poll(async () => (await d.call<TeamStatusView>('team.status')).state, { timeout: 10_000, interval: 50 }).toBe('live')
      }
      created = true
      stopConfirm = d.autoConfirm()
      desk = d
      return d
    },
    async kill() {
      stopConfirm?.()
      stopConfirm = null
      await desk?.close()
      desk = null
    },
    async dispose() {
      await this.kill()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export interface TakeoverTeam {
  /** Ann's desk: open when the setup returns. */
  a: ReopenableDesk
  b: SharedSandboxDesk
  c: SharedSandboxDesk
  /** C's operator address, as `team.join` gave it. */
  cAddress: string
  /** The team store straight from PostgreSQL, for verified views of the chain. */
  store: TeamStore
  close(): Promise<void>
}

/**
 * The takeover tests' team (features/team/team-takeover, team-earn-takeover): desks A, B and C on
 * `sandbox`, one team on `db`. A (Ann, admin) imports the sandbox keys, inits the team and can be
 * killed and reopened (`a`); B joins as approver (Bob); C as viewer (Cat) holding no account key, so
 * it can only re-send stored bytes or settle them. The policy is `rules`. With `coldAddress`, A's
 * address book holds COLD_DEST, usable before the team starts.
 */
export async function startTakeoverTeam(
  sandbox: SandboxHandle,
  db: PostgresHandle,
  opts: { dirPrefix: string; a: TeamTimers; b: TeamTimers; c: TeamTimers; coldAddress?: boolean; rules: unknown[] },
): Promise<TakeoverTeam> {
  const a = reopenableDesk(sandbox, { dirPrefix: opts.dirPrefix, team: opts.a })
  const started: SharedSandboxDesk[] = []
  try {
    const ann = await a.open()
    const b = await startDeskOnSharedSandbox(sandbox, { team: opts.b })
    started.push(b)
    const c = await startDeskOnSharedSandbox(sandbox, { team: opts.c })
    started.push(c)
    for (const d of [ann, b, c]) await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await ann.call('accounts.importSandboxKeys')
    if (opts.coldAddress) {
      shortCoolingOff(ann, sandbox)
      await ann.call('addresses.add', { label: 'cold', address: COLD_DEST, chainId: '1', passphrase: TEST_PASSPHRASE })
      await new Promise((r) => setTimeout(r, 1600)) // the address-book entry's cooling-off
    }
    const cfg = { connectionString: db.connectionString, password: db.password, passphrase: TEST_PASSPHRASE }
    for (const d of [ann, b, c]) await d.call('team.configure', cfg)
    await ann.call('team.init', { teamName: 'Treasury ops', name: 'Ann', passphrase: TEST_PASSPHRASE })
    const { address: bob } = await b.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })
    const cAddress = (await c.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    await ann.call('team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
    // C is on the team but holds no account key: it can re-send stored bytes, never sign.
    await ann.call('team.members.add', { address: cAddress, name: 'Cat', roles: ['viewer'] })
    await ann.call('team.policy.set', { rules: opts.rules })
    const opened = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
    return {
      a,
      b,
      c,
      cAddress,
      store: opened,
      async close() {
        await a.dispose()
        for (const d of [b, c]) await d.close()
        await opened.close()
      },
    }
  } catch (e) {
    // A setup that failed half-way leaves nothing running.
    await a.dispose()
    for (const d of started) await d.close()
    throw e
  }
}

/** A verified view of the store (as any desk sees it), straight from PostgreSQL. */
export async function verifiedProposal(store: TeamStore, id: string): Promise<Proposal> {
  const r = await verifyStore(store)
  expect(r.ok).toBe(true)
  return r.state.proposals.get(id)!
}

/** The proposal as `desk` lists it in its history (undefined until it has seen it). */
export const seenOn = async (desk: SharedSandboxDesk, id: string) =>
  (await desk.call<TeamProposalView[]>('team.proposals', { view: 'history' })).find((p) => p.id === id)

/** Proposal `id`, made on `initiator`, shows up on `approver`, is approved there, and `initiator` then sees it approved. */
export async function approveOn(approver: SharedSandboxDesk, initiator: SharedSandboxDesk, id: string): Promise<void> {
  await expect
    .poll(async () => (await approver.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).some((p) => p.id === id), {
      timeout: 3000,
      interval: 50,
    })
    .toBe(true)
  expect(await approver.call<TeamProposalView>('team.approve', { id })).toMatchObject({ status: 'approved' })
  await expect
    .poll(async () => (await initiator.call<TeamProposalView[]>('team.proposals', { view: 'waiting' })).find((p) => p.id === id)?.status, {
      timeout: 3000,
      interval: 50,
    })
    .toBe('approved')
}
