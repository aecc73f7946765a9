/**
 * Opens the selected network's session for one `desk` invocation through the core's one
 * session factory (the same the app uses): the network is the `selectedNetwork` setting
 * unless `--network` names another. Short commands read /info only (no streams).
 */
import { SettingsStore } from '../../core/config/settings'
import { HostSchedulers } from '../../core/exchange/scheduler'
import { openJournal, type Journal } from '../../core/journal'
import { NetworkSession, type WriteVault } from '../../core/session'
import type { CliContext } from './context'

export async function withCliSession<T>(ctx: CliContext, vault: WriteVault | null, fn: (s: NetworkSession, journal: Journal) => Promise<T>): Promise<T> {
  const settings = new SettingsStore(ctx.dataDir)
  const name = ctx.string('network')
  const network = name ? settings.network(name) : settings.selected()
  const journal = openJournal(ctx.dataDir)
  const schedulers = new HostSchedulers()
  try {
    const session = await NetworkSession.open({ network, journal, vault: () => vault, schedulers, stream: false })
    try {
      return await fn(session, journal)
    } finally {
      await session.close()
    }
  } finally {
    schedulers.closeAll()
    await journal.close()
  }
}
