/** Opens the read side of the core for one `desk` invocation (selected network or --network). */
import type { Address } from '../../../contract/types'
import { openJournal, UNRESOLVED_STATES } from '../../../core/journal'
import { openReadSide, type ReadSide } from '../../../core/services/read-side'
import type { AccountRef } from '../../../core/services/portfolio'
import type { CliContext } from '../context'
import type { OptionSpec } from '../router'

export const NETWORK_OPTION: Record<string, OptionSpec> = {
  network: { type: 'string', valueName: 'NAME', description: 'network to use (default: the selected one)' },
}

/** Runs `fn` with the read side, then closes the journal and the clients. */
export async function withReadSide<T>(ctx: CliContext, fn: (rs: ReadSide) => Promise<T>): Promise<T> {
  const journal = openJournal(ctx.dataDir)
  try {
    let network = ''
    const rs = await openReadSide({
      dataDir: ctx.dataDir,
      network: ctx.string('network'),
      journal,
      pendingJournal: (a) => journal.count({ network, account: a.toLowerCase(), state: [...UNRESOLVED_STATES] }),
    })
    network = rs.connected.network.name
    try {
      return await fn(rs)
    } finally {
      await rs.close()
    }
  } finally {
    journal.close()
  }
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
