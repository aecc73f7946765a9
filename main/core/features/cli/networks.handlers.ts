/** The desk's network settings: list, add or change, select (reopens the core's session), remove. */
import { networkView, type NetworkConfig } from '../../config/networks'
import type { HandlerTable } from '../../ipc/dispatch'
import type { CliDeps } from './cli-deps'
import { DeskError } from '../../errors/desk-error'

export type CliNetworkChannels = 'cli.networks.list' | 'cli.networks.set' | 'cli.networks.select' | 'cli.networks.remove'

const withName = (n: NetworkConfig) => ({ ...networkView(n), network: n.network })

export function cliNetworkHandlers(d: CliDeps): Pick<HandlerTable, CliNetworkChannels> {
  return {
    'cli.networks.list': () => {
      const s = d.settings.load()
      return { selected: s.selectedNetwork, networks: s.networks.map(withName) }
    },
    'cli.networks.set': async (a) => {
      const existing = d.settings.networks().find((n) => n.name === a.name)
      const chainId = a.chainId ?? existing?.chainId
      if (chainId === undefined) throw new DeskError('Usage', 'a new network needs --chain-id')
      // '' clears a URL; an absent option keeps the current one.
      const pick = (v: string | undefined, prev: string | null | undefined) => (v === '' ? null : (v ?? prev ?? null))
      const saved = d.settings.saveNetwork({
        name: a.name,
        kind: a.kind ?? existing?.kind ?? 'custom',
        network: a.network ?? existing?.network ?? a.name,
        chainId,
        tradingUrl: pick(a.tradingUrl, existing?.tradingUrl),
        wsUrl: pick(a.wsUrl, existing?.wsUrl),
        earnUrl: pick(a.earnUrl, existing?.earnUrl),
        infoRatePerSec: a.infoRatePerSec ?? existing?.infoRatePerSec ?? 1,
        tradeRatePerSec: a.tradeRatePerSec ?? existing?.tradeRatePerSec ?? 1,
      })
      // The selected network's new URLs or budgets take effect on its next session.
      if (d.settings.load().selectedNetwork === saved.name) {
        d.accounts.forget()
        await d.sessions.reset()
      }
      return withName(saved)
    },
    'cli.networks.select': async ({ name }) => {
      const n = d.settings.network(name)
      d.accounts.forget()
      await d.sessions.reset()
      d.settings.select(n.name)
      return { selected: n.name }
    },
    'cli.networks.remove': ({ name }) => {
      d.settings.removeNetwork(name)
      return { removed: name }
    },
  }
}
