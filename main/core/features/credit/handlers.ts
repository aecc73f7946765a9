import type { SettingsStore } from '../../config/settings'
import type { HandlerTable } from '../../ipc/dispatch'
import type { SessionSource } from '../../session'
import { creditFor } from './credit-for-session'
import type { CreditLive } from './credit-live'

export type CreditChannels = 'credit.health' | 'credit.history'

export function creditHandlers(d: {
  sessions: SessionSource
  settings: SettingsStore
  live: CreditLive
}): Pick<HandlerTable, CreditChannels> {
  const credit = async () => creditFor(await d.sessions.current(), d.settings)
  return {
    // From the live model: the account is followed from now on, and pushed (`state.credit`) whenever its stream or a write moves it.
    'credit.health': ({ address }) => d.live.health(address),
    'credit.history': async ({ address, sinceMs }) => (await credit()).history(address, sinceMs),
  }
}
