import type { Address } from '../../contract/types'
import { connectNetwork, type ConnectedNetwork, type SandboxStarter } from '../config/networks'
import { SettingsStore } from '../config/settings'
import { InfoClient } from '../exchange/info/client'
import { HostSchedulers, type RateScheduler } from '../exchange/scheduler'
import { StreamPool } from '../streams/pool'
import { AgentsReadService, type AgentKeyDirectory } from './agents-read'
import { CreditHealthService, type CreditHistoryStore } from './credit-health'
import { MarketDataCache } from './market-data'
import { PortfolioService } from './portfolio'
import { LastKnownState, type StateStore } from './state'

export interface ReadSideOptions {
  dataDir: string
  /** network name; default the selected one */
  network?: string
  /** the journal (state cache and credit history); null runs without a cache */
  journal?: (StateStore & CreditHistoryStore) | null
  /** agent keys held, for `keyInVault` */
  vault?: AgentKeyDirectory | null
  /** starts the sandbox in-process when the sandbox network is used (desktop app) */
  startSandbox?: SandboxStarter
  /** live state: an existing pool, or `true` to open one on the network's WebSocket (closed with the read side) */
  pool?: StreamPool | true
  /** the process-wide schedulers (one per host and API); default: private to this read side */
  schedulers?: HostSchedulers
  /** unresolved journal entries of an account, for the overview */
  pendingJournal?: (address: Address | string) => number
  now?: () => number
}

/** Everything the read side needs for one network, wired once (the app, the web host and `desk`). */
export interface ReadSide {
  settings: SettingsStore
  connected: ConnectedNetwork
  /** the /info scheduler of this host, shared with every other /info caller */
  scheduler: RateScheduler
  info: InfoClient
  market: MarketDataCache
  lastKnown: LastKnownState
  credit: CreditHealthService
  portfolio: PortfolioService
  agents: AgentsReadService
  /** the stream pool feeding live state, when there is one */
  pool: StreamPool | null
  close(): Promise<void>
}

export async function openReadSide(opts: ReadSideOptions): Promise<ReadSide> {
  const settings = new SettingsStore(opts.dataDir)
  const net = opts.network ? settings.network(opts.network) : settings.selected()
  const connected = await connectNetwork(net, opts.startSandbox ? { startSandbox: opts.startSandbox } : {})
  const n = connected.network
  const schedulers = opts.schedulers ?? new HostSchedulers()
  const scheduler = schedulers.get(n.tradingUrl, 'info', n.infoRatePerSec)
  const info = new InfoClient({ baseUrl: n.tradingUrl, scheduler })
  const now = opts.now ?? Date.now
  const pool = opts.pool === true ? new StreamPool({ wsUrl: n.wsUrl, info }) : opts.pool
  const market = new MarketDataCache(info, { now })
  const lastKnown = new LastKnownState(opts.journal ?? null, n.name, now)
  const credit = new CreditHealthService({
    info,
    market,
    network: n.name,
    history: opts.journal ?? null,
    lastKnown,
    pool,
    now,
    thresholds: () => settings.load().warningThresholds,
  })
  const portfolio = new PortfolioService({ info, market, credit, lastKnown, pool, now, pendingJournal: opts.pendingJournal })
  const agents = new AgentsReadService(info, opts.vault ?? null, lastKnown)
  return {
    settings,
    connected,
    scheduler,
    info,
    market,
    lastKnown,
    credit,
    portfolio,
    agents,
    pool: pool ?? null,
    async close() {
      if (opts.pool === true) await pool?.stop()
      if (!opts.schedulers) schedulers.closeAll()
      await connected.close()
    },
  }
}
