/**
 * `portfolio.status`: the overview of the named accounts (default: every vault account) read
 * now from the service on the selected network, not the live model's (`desk status`).
 */
import type { Address } from '../../../contract/types'
import type { HandlerTable } from '../../ipc/dispatch'
import type { SessionSource } from '../../session'
import { portfolioFor, type PortfolioServiceDeps } from './portfolio-for-session'

export type PortfolioStatusChannels = 'portfolio.status'

export interface PortfolioStatusDeps extends PortfolioServiceDeps {
  sessions: SessionSource
  /** The vault's accounts (no passphrase needed to list them). */
  keys: { listAccounts(): readonly { address: string; label: string; watchOnly: boolean }[] }
}

export function portfolioStatusHandlers(d: PortfolioStatusDeps): Pick<HandlerTable, PortfolioStatusChannels> {
  return {
    'portfolio.status': async ({ addresses }) => {
      const refs = d.keys
        .listAccounts()
        .map((a) => ({ address: a.address.toLowerCase() as Address, label: a.label, group: '', hasKey: !a.watchOnly }))
      const only = addresses?.map((a) => a.toLowerCase() as Address)
      const chosen = only ? only.map((a) => refs.find((r) => r.address === a) ?? { address: a, label: '', group: '', hasKey: false }) : refs
      const s = await d.sessions.current()
      const o = await portfolioFor(s, d).overview(chosen, 'operator')
      return { network: s.network.name, ...o }
    },
  }
}
