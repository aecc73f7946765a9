/** Changing one network in place (some fields, the rest kept) and removing one: policy events (network-changes.ts). */
import type { NetworkListing } from '../../../contract/types'
import { networkView, type NetworkConfig } from '../../config/networks'
import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import { removeNetwork, saveNetwork, type NetworkChangeDeps } from './network-changes'

export type NetworkChangeChannels = 'networks.update' | 'networks.remove'

/** The view with the environment's `network` name (what `networks.list` gives). */
export const withName = (n: NetworkConfig): NetworkListing => ({ ...networkView(n), network: n.network })

/** `switchSession` reopens the core's session: the selected network's new URLs or budgets apply at once. */
export function networkChangeHandlers(
  nets: NetworkChangeDeps,
  switchSession: () => Promise<void>,
): Pick<HandlerTable, NetworkChangeChannels> {
  return {
    'networks.update': async ({ passphrase, ...a }) => {
      const existing = nets.settings.networks().find((n) => n.name === a.name)
      const chainId = a.chainId ?? existing?.chainId
      if (chainId === undefined) throw new DeskError('Usage', 'a new network needs --chain-id')
      // '' clears a URL; an absent field keeps the current one.
      const pick = (v: string | undefined, prev: string | null | undefined) => (v === '' ? null : (v ?? prev ?? null))
      const saved = await saveNetwork(
        nets,
        {
          name: a.name,
          kind: a.kind ?? existing?.kind ?? 'custom',
          network: a.network ?? existing?.network ?? a.name,
          chainId,
          tradingUrl: pick(a.tradingUrl, existing?.tradingUrl),
          wsUrl: pick(a.wsUrl, existing?.wsUrl),
          earnUrl: pick(a.earnUrl, existing?.earnUrl),
          infoRatePerSec: a.infoRatePerSec ?? existing?.infoRatePerSec ?? 1,
          tradeRatePerSec: a.tradeRatePerSec ?? existing?.tradeRatePerSec ?? 1,
          // Kept across other edits (a URL change must not turn strict limits back on or off).
          ...(a.strictLimits !== undefined
            ? { strictLimits: a.strictLimits }
            : existing?.strictLimits !== undefined
              ? { strictLimits: existing.strictLimits }
              : {}),
        },
        passphrase,
      )
      if (nets.settings.load().selectedNetwork === saved.name) await switchSession()
      return withName(saved)
    },
    'networks.remove': async ({ name, passphrase }) => {
      await removeNetwork(nets, name, passphrase)
      return { removed: name }
    },
  }
}
