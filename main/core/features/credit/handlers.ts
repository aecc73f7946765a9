import type { SettingsStore } from '../../config/settings'
import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import type { SessionSource } from '../../session'
import { creditFor } from './credit-for-session'

export type CreditChannels = 'credit.health' | 'credit.history'

export function creditHandlers(d: { sessions: SessionSource; settings: SettingsStore }): Pick<HandlerTable, CreditChannels> {
  const credit = async () => creditFor(await d.sessions.current(), d.settings)
  return {
    'credit.health': async ({ address }) => {
      const h = await (await credit()).health(address, 'operator')
      if (!h) throw new DeskError('NotCreditAccount', `${address} has no credit line.`)
      return h
    },
    'credit.history': async ({ address, sinceMs }) => (await credit()).history(address, sinceMs),
  }
}
