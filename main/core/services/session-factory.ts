import { connectNetwork, type NetworkConfig } from '../config/networks'
import { SettingsStore } from '../config/settings'
import { InfoClient } from '../exchange/info/client'
import { RateScheduler } from '../exchange/scheduler'
import { openJournal, type Journal } from '../journal'
import { WriteSession, type WriteVault } from './write-session'

export interface OpenedWriteSession {
  network: NetworkConfig
  journal: Journal
  info: InfoClient
  session: WriteSession
  /** Stops reconciliation, waits for in-flight writes to be recorded, closes the journal. */
  close(): Promise<void>
}

/**
 * Builds the write side for one configured network from the data directory (settings, journal)
 * and a vault: what `desk` and other short-lived hosts use. The sandbox is reached at its
 * configured URLs (the desktop app or `npm run sandbox` runs it), so every host sees one exchange.
 */
export async function openWriteSession(opts: { dataDir: string; networkName?: string; vault: WriteVault; journal?: Journal }): Promise<OpenedWriteSession> {
  const settings = new SettingsStore(opts.dataDir)
  const n = settings.network(opts.networkName ?? 'sandbox')
  const connected = await connectNetwork(n)
  const journal = opts.journal ?? openJournal(opts.dataDir)
  const info = new InfoClient({ baseUrl: connected.network.tradingUrl, scheduler: new RateScheduler({ ratePerSec: connected.network.infoRatePerSec }) })
  const session = new WriteSession({ network: connected.network, journal, vault: opts.vault, info })
  return {
    network: connected.network,
    journal,
    info,
    session,
    async close() {
      await session.stop()
      info.scheduler.close()
      if (!opts.journal) await journal.close()
      await connected.close()
    },
  }
}

/** The journal alone (queries and exports need no network). */
export function openJournalOnly(dataDir: string): Journal {
  return openJournal(dataDir)
}
