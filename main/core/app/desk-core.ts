import type { CallContext, Dispatch } from '../ipc/dispatch'
import { createDispatcher } from '../ipc/dispatch'
import type { SandboxStarter } from '../config/networks'
import type { EventHub } from './events'
import { buildHandlers } from './handlers'
import type { HostServices } from './host-services'
import { DeskRuntime } from './runtime'
import { inProcessSandbox } from './sandbox-starter'

export interface DeskCoreOptions {
  dataDir: string
  host: 'electron' | 'web' | 'cli'
  version: string
  services: HostServices
  /** Default: the built-in sandbox started in-process on its configured ports. */
  startSandbox?: SandboxStarter
  /** Background overview refresh (ms); 0 disables it. */
  overviewRefreshMs?: number
  /** scrypt cost for vaults created by this core (tests use a cheap one). */
  scryptN?: number
}

/**
 * The composition root shared by every host: it owns the vault, journal, clients and
 * services, exposes one dispatcher for the contract, and pushes events through `events`.
 */
export interface DeskCore {
  readonly events: EventHub
  readonly runtime: DeskRuntime
  dispatch(channel: unknown, args: unknown, ctx: CallContext): ReturnType<Dispatch>
  /** Operator activity: resets the vault's idle auto-lock timer. */
  touch(): void
  lockVault(reason: 'os' | 'idle' | 'operator'): void
  /** https hosts the operator configured (for the external-link allow-list). */
  externalHosts(): string[]
  /** Stops streams and timers, drains pending journal writes, closes the database. */
  close(): Promise<void>
}

export async function createDeskCore(opts: DeskCoreOptions): Promise<DeskCore> {
  const runtime = await DeskRuntime.open({ ...opts, startSandbox: opts.startSandbox ?? inProcessSandbox(opts.dataDir) })
  const dispatch = createDispatcher(buildHandlers(runtime), {
    // Only the channel name and error code are logged, never arguments (they may hold a passphrase).
    warn: (message, fields) => console.warn(message, JSON.stringify(fields)),
  })
  return {
    events: runtime.events,
    runtime,
    dispatch,
    touch: () => runtime.touch(),
    lockVault: (reason) => runtime.lock(reason),
    externalHosts: () => runtime.externalHosts(),
    close: () => runtime.close(),
  }
}
