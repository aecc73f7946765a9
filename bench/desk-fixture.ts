/**
 * Bench fixture: a data directory holding the sandbox network, a vault with the six development
 * owners and 14 funded watch-only accounts (20 in all), and a core over it handed an already
 * running sandbox. The sandbox keeps the spec's default rate limits; the caller picks whether its
 * marks move and its bot trades.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { startSandbox, type SandboxHandle, type StartSandboxOptions } from '../sandbox'
import { sandboxNetwork } from '../main/core/config/networks'
import { SettingsStore } from '../main/core/config/settings'
import { createDeskCore, type DeskCore } from '../main/core/app/compose'
import { headlessHostServices } from '../main/core/features/host'
import { Vault, vaultPath, type ScryptParams } from '../main/core/vault'
import { DEV_OWNERS, DEV_OWNER_LABELS } from '../sandbox/scenario/dev-keys'

export const BENCH_PASSPHRASE = 'correct horse battery staple 42!'
export const ACCOUNTS = 20
/** A cheap vault cost for benches that unlock often (the desk ships N = 2^18: DEFAULT_SCRYPT). */
export const BENCH_SCRYPT: ScryptParams = { n: 2 ** 14, r: 8, p: 1 }

export interface Extra {
  address: Address
  label: string
}

export interface SandboxUrls {
  tradingUrl: string
  wsUrl: string
  earnUrl: string
  chainId: number
}

export function urlsOf(s: SandboxHandle): SandboxUrls {
  return { tradingUrl: s.tradingUrl, wsUrl: s.wsUrl, earnUrl: s.earnUrl, chainId: s.chainId }
}

/** A live sandbox: default rate limits, moving marks, the scenario's bot trading (unless overridden). */
export function startLiveSandbox(opts: StartSandboxOptions = {}): Promise<SandboxHandle> {
  return startSandbox({ port: 0, seed: true, ...opts })
}

/** Writes settings and a vault for 20 accounts (or `accounts`) into a new data dir; funds the extra ones on the sandbox. */
export function prepareDataDir(
  sandbox: SandboxHandle,
  dataDir?: string,
  accounts = ACCOUNTS,
  watch: readonly Extra[] = [],
  vaultScrypt: ScryptParams = BENCH_SCRYPT,
): Promise<{ dataDir: string; extra: Extra[] }> {
  return prepareDataDirOn(
    urlsOf(sandbox),
    async (address, assetId, atoms) => void sandbox.trading.deposit(address, assetId, atoms),
    dataDir,
    accounts,
    watch,
    vaultScrypt,
  )
}

/** The same for a sandbox reached by its URLs (e.g. in another process), funding through `deposit`. */
export async function prepareDataDirOn(
  urls: SandboxUrls,
  deposit: (address: Address, assetId: number, atoms: bigint) => Promise<void>,
  dataDir = mkdtempSync(join(tmpdir(), 'desk-bench-')),
  /** accounts in the vault in all: the six development owners, the rest funded watch-only ones */
  accounts = ACCOUNTS,
  /** addresses watched as well, unfunded by us and not counted in `accounts` (e.g. the market maker's, whose fills are checked) */
  watch: readonly Extra[] = [],
  /** the vault's scrypt cost: cheap by default (benches unlock often); the soak uses the shipped one (DEFAULT_SCRYPT) */
  vaultScrypt: ScryptParams = BENCH_SCRYPT,
): Promise<{ dataDir: string; extra: Extra[] }> {
  const settings = new SettingsStore(dataDir)
  // The figures "without strict mode" (issue 25); the sandbox would otherwise run strict by default.
  settings.saveNetwork({
    ...sandboxNetwork({ trading: Number(new URL(urls.tradingUrl).port), earn: Number(new URL(urls.earnUrl).port) }),
    strictLimits: false,
  })
  const vault = await Vault.create({ path: vaultPath(dataDir), passphrase: BENCH_PASSPHRASE, scrypt: vaultScrypt })
  for (const o of DEV_OWNERS) await vault.importPrivateKey(o.privateKey, DEV_OWNER_LABELS[o.index])
  // Labels sort in creation order and none is a prefix of another (Bench 01 … Bench 14; Bench 001 … Bench 194).
  const pad = Math.max(2, String(accounts - DEV_OWNERS.length).length)
  const extra: Extra[] = Array.from({ length: accounts - DEV_OWNERS.length }, (_, i) => ({
    address: privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Address,
    label: `Bench ${String(i + 1).padStart(pad, '0')}`,
  }))
  for (const a of extra) {
    await deposit(a.address, 1, 5_000n * 10n ** 8n)
    await vault.addWatchOnly(a.address, a.label)
  }
  for (const w of watch) await vault.addWatchOnly(w.address, w.label)
  vault.lock()
  await new Promise((r) => setTimeout(r, 300)) // the deposits land in a block
  return { dataDir, extra }
}

/**
 * Turns strict-limits mode on or off for the sandbox network in `dataDir` (it is on by default:
 * `strictLimitsFor`); a core opened afterwards runs in that mode.
 */
export function setStrictLimits(dataDir: string, urls: SandboxUrls, strict: boolean): void {
  const net = sandboxNetwork({ trading: Number(new URL(urls.tradingUrl).port), earn: Number(new URL(urls.earnUrl).port) })
  new SettingsStore(dataDir).saveNetwork({ ...net, strictLimits: strict })
}

/** A core over `dataDir`, talking to the running sandbox at `urls`. */
export function openCore(dataDir: string, urls: SandboxUrls, overviewRefreshMs?: number): Promise<DeskCore> {
  return createDeskCore({
    dataDir,
    host: 'web',
    version: 'bench',
    services: headlessHostServices,
    startSandbox: async () => ({ ...urls, stop: async () => {} }),
    ...(overviewRefreshMs !== undefined ? { overviewRefreshMs } : {}),
  })
}

/**
 * Approves every owner-key confirmation the core asks for (as the operator would in the dialog),
 * with the bench passphrase when one is needed: benches that write through the core headless
 * would otherwise wait on a prompt nobody answers. Returns the unsubscribe.
 */
export function approveConfirmations(core: DeskCore): () => void {
  return core.events.subscribe((event, payload) => {
    if (event !== 'confirm.request') return
    const req = payload as { id: string; needsPassphrase: boolean }
    void core.dispatch(
      'confirm.respond',
      { id: req.id, approved: true, ...(req.needsPassphrase ? { passphrase: BENCH_PASSPHRASE } : {}) },
      { host: 'test' },
    )
  })
}

/** Calls a contract channel on the core, throwing its typed error. */
export async function call<T>(core: DeskCore, channel: string, args?: unknown): Promise<T> {
  const r = await core.dispatch(channel, args, { host: 'test' })
  if (!r.ok) throw new Error(`${channel}: ${r.error.code}: ${r.error.message}`)
  return r.value as T
}
