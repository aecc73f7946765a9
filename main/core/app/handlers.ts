import type { ChannelName } from '../../contract/channels'
import { channelNames } from '../../contract/channels'
import type { AppState } from '../../contract/types'
import { DeskError } from '../errors/desk-error'
import type { HandlerTable } from '../ipc/dispatch'
import type { EventHub } from './events'
import type { HostServices } from './host-services'

export interface HandlerContext {
  dataDir: string
  host: 'electron' | 'web' | 'cli'
  version: string
  services: HostServices
  events: EventHub
}

export interface BuiltApp {
  handlers: HandlerTable
  touch(): void
  lock(reason: 'os' | 'idle' | 'operator'): void
  externalHosts(): string[]
  close(): Promise<void>
}

function notAvailable(channel: ChannelName): never {
  throw new DeskError('NotAvailable', `${channel} is not available in this build yet.`)
}

export async function buildHandlers(ctx: HandlerContext): Promise<BuiltApp> {
  const state = (): AppState => ({
    version: ctx.version,
    host: ctx.host === 'cli' ? 'web' : ctx.host,
    network: {
      name: 'sandbox',
      kind: 'sandbox',
      chainId: 424242,
      tradingUrl: '',
      wsUrl: '',
      earnUrl: '',
      infoRatePerSec: 1,
      tradeRatePerSec: 1,
      configured: true,
    },
    vault: { exists: false, unlocked: false, lastPassphraseAt: null, autoLockMinutes: 15 },
  })

  const partial: Partial<HandlerTable> = {
    'app.state': state,
    'dialog.openFile': async ({ purpose }) => ({ path: await ctx.services.openFile(purpose) }),
    'shell.openExternal': async ({ url }) => ({ opened: await ctx.services.openExternal(url) }),
  }
  const handlers = Object.fromEntries(
    channelNames.map((name) => [name, partial[name] ?? (() => notAvailable(name))]),
  ) as HandlerTable

  return {
    handlers,
    touch: () => {},
    lock: () => {},
    externalHosts: () => [],
    close: async () => {},
  }
}
