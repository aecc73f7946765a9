/** Opens the read side of the core for one `desk` invocation (selected network or --network). */
import type { Address } from '../../../contract/types'
import type { ResolvedNetwork } from '../../../core/config/networks'
import { SettingsStore } from '../../../core/config/settings'
import type { InfoClient } from '../../../core/exchange/info/client'
import { UNRESOLVED_STATES } from '../../../core/journal'
import type { AccountRef } from '../../../core/features/accounts'
import { creditFor, type CreditHealthService } from '../../../core/features/credit'
import { portfolioFor, type PortfolioService } from '../../../core/features/portfolio'
import type { LastKnownState } from '../../../core/session'
import { withCliSession } from '../cli-session'
import type { CliContext } from '../context'
import type { OptionSpec } from '../router'

export const NETWORK_OPTION: Record<string, OptionSpec> = {
  network: { type: 'string', valueName: 'NAME', description: 'network to use (default: the selected one)' },
}

/** What the read commands use: the session's /info client and state, and the read-model services. */
export interface ReadSide {
  connected: { network: ResolvedNetwork }
  info: InfoClient
  lastKnown: LastKnownState
  portfolio: PortfolioService
  credit: CreditHealthService
}

/** Runs `fn` with the read side of the selected network (or --network), then closes everything. */
export async function withReadSide<T>(ctx: CliContext, fn: (rs: ReadSide) => Promise<T>): Promise<T> {
  const settings = new SettingsStore(ctx.dataDir)
  return withCliSession(ctx, null, (s, journal) => {
    const pendingJournal = (network: string, a: string) => journal.count({ network, account: a.toLowerCase(), state: [...UNRESOLVED_STATES] })
    return fn({ connected: { network: s.network }, info: s.info, lastKnown: s.lastKnown, portfolio: portfolioFor(s, { settings, pendingJournal }), credit: creditFor(s, settings) })
  })
}

/** The vault's accounts as portfolio references (no passphrase needed to list them). */
export async function vaultAccounts(ctx: CliContext): Promise<{ refs: AccountRef[]; directory: { listAccounts(): { address: Address; agents: { slot: number; address: Address; createdAt: string }[] }[] } | null }> {
  const { Vault } = await import('../../../core/vault')
  if (!(await Vault.exists(ctx.vaultPath))) return { refs: [], directory: null }
  const vault = await ctx.openVault()
  const accounts = vault.listAccounts()
  return {
    refs: accounts.map((a) => ({ address: a.address.toLowerCase() as Address, label: a.label, group: '', hasKey: !a.watchOnly })),
    directory: { listAccounts: () => accounts.map((a) => ({ address: a.address, agents: a.agents })) },
  }
}
