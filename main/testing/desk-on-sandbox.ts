/**
 * Test support: a DeskCore over a fresh data directory, wired to a sandbox started on an
 * OS-picked loopback port (rate limits relaxed so suites stay quick). Used by the core's
 * integration tests and by the browser end-to-end harness.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSandbox, type SandboxHandle, type StartSandboxOptions } from '../../sandbox'
import { sandboxNetwork } from '../core/config/networks'
import { SettingsStore } from '../core/config/settings'
import { createDeskCore, type DeskCore } from '../core/app/compose'
import { headlessHostServices } from '../core/features/host'
import { demoAccounts } from '../hosts/dev'

export { demoAccounts }

export const TEST_PASSPHRASE = 'correct horse battery staple 42!'

export interface DeskOnSandbox {
  core: DeskCore
  sandbox: SandboxHandle
  dataDir: string
  call<T = unknown>(channel: string, args?: unknown): Promise<T>
  /** Approves every confirmation request (with the passphrase when asked). Returns the unsubscribe. */
  autoConfirm(passphrase?: string): () => void
  close(): Promise<void>
}

export async function startDeskOnSandbox(
  /** `strictLimits`: the suites written for a desk streaming every account run without it (default false); strict mode has suites of its own (core/streams). */
  opts: {
    sandbox?: StartSandboxOptions
    ratePerSec?: number
    overviewRefreshMs?: number
    dataDir?: string
    alerts?: boolean
    strictLimits?: boolean
  } = {},
): Promise<DeskOnSandbox> {
  // Marks stay fresh but constant (markStepBps 0) so tests can assert exact values; a test may make them move.
  const sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0, ...opts.sandbox })
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'desk-core-'))
  const tradingPort = Number(new URL(sandbox.tradingUrl).port)
  const earnPort = Number(new URL(sandbox.earnUrl).port)
  const settings = new SettingsStore(dataDir)
  settings.saveNetwork({
    ...sandboxNetwork({ trading: tradingPort, earn: earnPort }),
    infoRatePerSec: opts.ratePerSec ?? 200,
    tradeRatePerSec: opts.ratePerSec ?? 200,
    strictLimits: opts.strictLimits ?? false,
  })
  const core = await createDeskCore({
    dataDir,
    host: 'web',
    version: '0.0.0-test',
    services: headlessHostServices,
    // The sandbox is already running: hand its URLs over instead of starting another one.
    startSandbox: async () => ({
      tradingUrl: sandbox.tradingUrl,
      wsUrl: sandbox.wsUrl,
      earnUrl: sandbox.earnUrl,
      chainId: sandbox.chainId,
      stop: async () => {},
    }),
    demoAccounts,
    // Alert rules fire on the seeded scenario at once; only the tests about them turn them on.
    alerts: opts.alerts ?? false,
    overviewRefreshMs: opts.overviewRefreshMs ?? 0,
    scryptN: 2 ** 12,
  })
  const call = async <T>(channel: string, args?: unknown): Promise<T> => {
    const r = await core.dispatch(channel, args, { host: 'test' })
    if (!r.ok) throw Object.assign(new Error(`${r.error.code}: ${r.error.message}`), { code: r.error.code })
    return r.value as T
  }
  return {
    core,
    sandbox,
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
    async close() {
      await core.close()
      await sandbox.stop()
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
