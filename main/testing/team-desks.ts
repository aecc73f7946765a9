/**
 * Test support for team mode: several desks (each its own data directory and vault) on ONE sandbox,
 * and a real PostgreSQL team store (testing/postgres.ts). `startDeskOnSandbox` starts a sandbox per
 * desk; here the desks share the exchange, so the sandbox's ground truth is the one both act on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SandboxHandle } from '../../sandbox'
import { createDeskCore, type DeskCore } from '../core/app/compose'
import { sandboxNetwork } from '../core/config/networks'
import { SettingsStore } from '../core/config/settings'
import { headlessHostServices } from '../core/features/host'
import { exchangeIdentity, exchangeKey, exchangePolicyPath, exchangeTag } from '../core/policy'
import { demoAccounts } from '../hosts/dev'
import { TEST_PASSPHRASE } from './desk-on-sandbox'

export interface SharedSandboxDesk {
  core: DeskCore
  dataDir: string
  call<T = unknown>(channel: string, args?: unknown): Promise<T>
  /** Approves every confirmation request (with the passphrase when asked). Returns the unsubscribe. */
  autoConfirm(passphrase?: string): () => void
  /** Resolves with the first pushed event payload that `match` accepts (rejects after `timeoutMs`). */
  nextEvent<T = unknown>(event: string, match: (payload: T) => boolean, timeoutMs?: number): Promise<T>
  close(): Promise<void>
}

/** A desk core over a fresh data directory, its selected network the already running `sandbox`. */
export async function startDeskOnSharedSandbox(
  sandbox: SandboxHandle,
  opts: {
    dataDir?: string
    team?: { proposalTtlMs?: number; leaseMs?: number; recoverEveryMs?: number; releaseWaitMs?: number }
    /** false: approvals' confirmations are left to the test (default: confirmed) */
    confirmApprovals?: boolean
  } = {},
): Promise<SharedSandboxDesk> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'desk-team-'))
  const settings = new SettingsStore(dataDir)
  settings.saveNetwork({
    ...sandboxNetwork({ trading: Number(new URL(sandbox.tradingUrl).port), earn: Number(new URL(sandbox.earnUrl).port) }),
    infoRatePerSec: 200,
    tradeRatePerSec: 200,
    strictLimits: false,
  })
  const core = await createDeskCore({
    dataDir,
    host: 'web',
    version: '0.0.0-test',
    services: headlessHostServices,
    startSandbox: async () => ({
      tradingUrl: sandbox.tradingUrl,
      wsUrl: sandbox.wsUrl,
      earnUrl: sandbox.earnUrl,
      chainId: sandbox.chainId,
      stop: async () => {},
    }),
    demoAccounts,
    alerts: false,
    overviewRefreshMs: 0,
    scryptN: 2 ** 12,
    ...(opts.team ? { team: opts.team } : {}),
  })
  // An approval asks its operator to confirm (features/team/service.ts approve): the tests' operators
  // confirm theirs, with the passphrase when asked; e2e/ and team-review tests drive the dialog itself.
  if (opts.confirmApprovals !== false)
    core.events.subscribe((event, payload) => {
      const req = payload as { id: string; title: string; needsPassphrase: boolean }
      if (event !== 'confirm.request' || !req.title.startsWith('Approve proposal:')) return
      void core.dispatch(
        'confirm.respond',
        { id: req.id, approved: true, ...(req.needsPassphrase ? { passphrase: TEST_PASSPHRASE } : {}) },
        { host: 'test' },
      )
    })
  const call = async <T>(channel: string, args?: unknown): Promise<T> => {
    const r = await core.dispatch(channel, args, { host: 'test' })
    if (!r.ok) throw Object.assign(new Error(`${r.error.code}: ${r.error.message}`), { code: r.error.code, details: r.error.details })
    return r.value as T
  }
  return {
    core,
    dataDir,
    call,
    autoConfirm(passphrase = TEST_PASSPHRASE) {
      return core.events.subscribe((event, payload) => {
        if (event !== 'confirm.request') return
        const req = payload as { id: string; needsPassphrase: boolean }
        void core.dispatch(
          'confirm.respond',
          { id: req.id, approved: true, ...(req.needsPassphrase ? { passphrase } : {}) },
          { host: 'test' },
        )
      })
    },
    nextEvent<T>(event: string, match: (payload: T) => boolean, timeoutMs = 5000) {
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          off()
          reject(new Error(`no ${event} event matched within ${timeoutMs} ms`))
        }, timeoutMs)
        const off = core.events.subscribe((e, payload) => {
          if (e !== event || !match(payload as T)) return
          clearTimeout(timer)
          off()
          resolve(payload as T)
        })
      })
    },
    async close() {
      await core.close()
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * The sandbox exchange's policy file with a matured 1.5 s cooling-off, so an address-book entry
 * added now is usable in this run (as the engine persists it). Call before `addresses.add`, then wait 1.6 s.
 */
export function shortCoolingOff(desk: SharedSandboxDesk, sandbox: SandboxHandle): void {
  const ex = exchangeIdentity({ chainId: sandbox.chainId, tradingUrl: sandbox.tradingUrl, earnUrl: sandbox.earnUrl })
  writeFileSync(
    exchangePolicyPath(desk.dataDir, exchangeTag(ex)),
    JSON.stringify({
      version: 1,
      network: exchangeKey(ex),
      rules: { 'cooling-off': '1500' },
      pending: [],
      addresses: [],
      halted: null,
      exchange: { ...ex, kind: 'sandbox' },
      aliases: ['sandbox'],
    }),
  )
}

/**
 * Two desks on one sandbox and one team: A (keys imported, confirmations approved, admin Ann) inits
 * the team on `connectionString`; B joins and is added as an approver (Bob). The caller sets the policy.
 */
export async function startTeamOfTwo(
  sandbox: SandboxHandle,
  db: { connectionString: string; password: string },
): Promise<{ a: SharedSandboxDesk; b: SharedSandboxDesk; stopConfirm: () => void; close(): Promise<void> }> {
  const a = await startDeskOnSharedSandbox(sandbox)
  const b = await startDeskOnSharedSandbox(sandbox)
  for (const d of [a, b]) await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
  await a.call('accounts.importSandboxKeys')
  const stopConfirm = a.autoConfirm()
  const cfg = { connectionString: db.connectionString, password: db.password, passphrase: TEST_PASSPHRASE }
  for (const d of [a, b]) await d.call('team.configure', cfg)
  await a.call('team.init', { teamName: 'Treasury ops', name: 'Ann', passphrase: TEST_PASSPHRASE })
  const { address: bob } = await b.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })
  await a.call('team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
  return {
    a,
    b,
    stopConfirm,
    close: async () => {
      stopConfirm()
      await a.close()
      await b.close()
    },
  }
}

/** The cold-wallet destination the keyed desk's address book holds (withdrawal tests). */
export const COLD_DEST = '0x52908400098527886E0F7030069857D2E4169EE7'

/**
 * Two fresh desks before any team: A holds the sandbox keys (confirmations approved, COLD_DEST in its
 * address book, usable now), B has its operator identity (`bob`). A vault belongs to one team for
 * good (features/team/binding.ts), so a test that needs another team starts another pair.
 */
export async function startKeyedAndApprover(
  sandbox: SandboxHandle,
  opts: { a?: { proposalTtlMs?: number; recoverEveryMs?: number }; b?: { recoverEveryMs?: number } } = {},
): Promise<{ a: SharedSandboxDesk; b: SharedSandboxDesk; bob: string; close(): Promise<void> }> {
  const a = await startDeskOnSharedSandbox(sandbox, opts.a ? { team: opts.a } : {})
  const b = await startDeskOnSharedSandbox(sandbox, opts.b ? { team: opts.b } : {})
  for (const d of [a, b]) await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
  await a.call('accounts.importSandboxKeys')
  const stopConfirm = a.autoConfirm()
  shortCoolingOff(a, sandbox)
  await a.call('addresses.add', { label: 'cold', address: COLD_DEST, chainId: '1', passphrase: TEST_PASSPHRASE })
  const bob = (await b.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
  await new Promise((r) => setTimeout(r, 1600)) // the address-book entry's cooling-off
  return {
    a,
    b,
    bob,
    close: async () => {
      stopConfirm()
      await a.close()
      await b.close()
    },
  }
}
