/** The desk's network settings: list, add or change, select (reopens the core's session), remove. */
import { networkView, type NetworkConfig } from '../../config/networks'
import type { HandlerTable } from '../../ipc/dispatch'
import type { PolicyBook } from '../../policy'
import { recordSelect, removeNetwork, saveNetwork, type NetworkChangeDeps } from '../settings'
import type { CliDeps } from './cli-deps'
import { DeskError } from '../../errors/desk-error'
import { readSecret } from './secrets'

export type CliNetworkChannels = 'cli.networks.list' | 'cli.networks.set' | 'cli.networks.select' | 'cli.networks.remove'

const withName = (n: NetworkConfig) => ({ ...networkView(n), network: n.network })

/** Adding, changing or removing a network needs the vault passphrase once a vault exists (settings/network-changes.ts). */
export function cliNetworkHandlers(d: CliDeps & { policy: PolicyBook }): Pick<HandlerTable, CliNetworkChannels> {
  const nets: NetworkChangeDeps = { settings: d.settings, policy: d.policy, hasVault: () => d.vault.current !== null }
  const pass = async (ref: Parameters<typeof readSecret>[0] | undefined) => (ref ? readSecret(ref, 'vault passphrase') : undefined)
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
      const saved = await saveNetwork(nets, {
        name: a.name,
        kind: a.kind ?? existing?.kind ?? 'custom',
        network: a.network ?? existing?.network ?? a.name,
        chainId,
        tradingUrl: pick(a.tradingUrl, existing?.tradingUrl),
        wsUrl: pick(a.wsUrl, existing?.wsUrl),
        earnUrl: pick(a.earnUrl, existing?.earnUrl),
        infoRatePerSec: a.infoRatePerSec ?? existing?.infoRatePerSec ?? 1,
        tradeRatePerSec: a.tradeRatePerSec ?? existing?.tradeRatePerSec ?? 1,
      }, await pass(a.passphrase))
      // The selected network's new URLs or budgets take effect on its next session.
      if (d.settings.load().selectedNetwork === saved.name) {
        d.accounts.forget()
        await d.sessions.reset()
      }
      return withName(saved)
    },
    'cli.networks.select': async ({ name }) => {
      const n = d.settings.network(name)
      const from = d.settings.load().selectedNetwork
      d.accounts.forget()
      await d.sessions.reset()
      d.settings.select(n.name)
      recordSelect(nets, from, n)
      return { selected: n.name }
    },
    'cli.networks.remove': async ({ name, passphrase }) => {
      await removeNetwork(nets, name, await pass(passphrase))
      return { removed: name }
    },
  }
}
