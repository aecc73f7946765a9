import type { CallContext, Dispatch } from '../ipc/dispatch'
import { createDispatcher } from '../ipc/dispatch'
import { EventHub } from './events'
import type { HostServices } from './host-services'
import { buildHandlers } from './handlers'

export interface DeskCoreOptions {
  dataDir: string
  host: 'electron' | 'web' | 'cli'
  version: string
  services: HostServices
}

/**
 * The composition root shared by every host: it owns the vault, journal, clients and
 * services, exposes one dispatcher for the contract, and pushes events through `events`.
 */
export interface DeskCore {
  readonly events: EventHub
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
  const events = new EventHub()
  const ctx = { ...opts, events }
  const app = await buildHandlers(ctx)
  const dispatch = createDispatcher(app.handlers, {
    warn: (message, fields) => console.warn(message, JSON.stringify(fields)),
  })
  return {
    events,
    dispatch,
    touch: () => app.touch(),
    lockVault: (reason) => app.lock(reason),
    externalHosts: () => app.externalHosts(),
    close: () => app.close(),
  }
}
