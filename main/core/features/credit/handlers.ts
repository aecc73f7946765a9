import type { SettingsStore } from '../../config/settings'
import type { HandlerTable } from '../../ipc/dispatch'
import type { SessionSource } from '../../session'
import { creditFor } from './credit-for-session'

/** `credit.health` is served by the portfolio feature, from the live account model (and pushed while on screen). */
export type CreditChannels = 'credit.history'

export function creditHandlers(d: { sessions: SessionSource; settings: SettingsStore }): Pick<HandlerTable, CreditChannels> {
  const credit = async () => creditFor(await d.sessions.current(), d.settings)
  return {
    'credit.history': async ({ address, sinceMs }) => (await credit()).history(address, sinceMs),
  }
}
