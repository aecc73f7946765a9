import {
  connectNetwork,
  strictLimitsFor,
  type ConnectedNetwork,
  type NetworkConfig,
  type ResolvedNetwork,
  type SandboxStarter,
} from '../config/networks'
import { DeskError } from '../errors/desk-error'
import { InfoClient } from '../exchange/info/client'
import type { HostSchedulers } from '../exchange/scheduler'
import type { Journal } from '../journal'
import { StreamPool } from '../streams/pool'
import { LastKnownState } from './last-known'
import { LiveAccountReads } from './live-reads'
import { MarketDataCache } from './market-data'
import { WriteSide, type WriteSideOptions, type WriteVault } from './write-side'

export interface NetworkSessionOptions {
  /** The network to open (hosts pass the selected one from settings). */
  network: NetworkConfig
  journal: Journal
  /** Looked up at each use, so a vault created or replaced later is seen without reconnecting. */
  vault: () => WriteVault | null
  /** The process-wide schedulers: one per service host and API, whoever opens sessions. */
  schedulers: HostSchedulers
  /** Starts the sandbox when the sandbox network is opened (a host port; the core never imports the sandbox). */
  startSandbox?: SandboxStarter
  /** Open a stream pool for live state (long-running hosts); short commands read /info only. */
  stream?: boolean
  now?: () => number
  /** Test hooks for the write side (fake time, expiries, reconcile ages). */
  write?: Partial<Omit<WriteSideOptions, 'network' | 'journal' | 'vault' | 'info' | 'tradeScheduler'>>
}

/** Journal states of a write still in flight (`Journal.unresolved`): its account streams in strict mode. */
/** The last-known cache is stored at most this often (write-behind: see LastKnownOptions.flushMs). */
const LAST_KNOWN_FLUSH_MS = 2_000
const PENDING = new Set<string>(['signed', 'sent', 'unknown'])
/**
 * Strict limits: marks and the oracle status (two /info reads) are fetched again for pushes and
 * alert passes once this old, not every 5 s: at 1 request/s that is up to 40 % of the budget the polled
 * balances need (50 accounts: a read each per minute). A mark is judged stale on its own source
 * time (60 s), so an older fetch never shows a stale mark as fresh; the operator's and a write's
 * reads keep the 5 s TTL.
 */
export const STRICT_MARKS_REFRESH_MS = 30_000
/**
 * Strict limits: the overdue lane (polled balances past their bound) takes at most one read per
 * this many requests of the /info budget (the pool's default is 1.25: 0.8 reads/s at 1 request/s).
 * At 50 accounts, 47 polled plus a credit line's second read are 49 reads a round: at 0.8/s a
 * round took 59–63 s (the 50-account bench's p99 61.4 s, its background lane busy with an alert's
 * deposits reads and a start's identity reads). At 0.87/s a round is about 56 s beside the marks
 * (0.07/s); the background lane keeps about one read in twelve for the one-off reads.
 */
export const STRICT_OVERDUE_SPACING_REQUESTS = 1.15

/**
 * Everything bound to one network, opened by exactly one factory for every host: the /info
 * client (on the host's shared /info budget), the stream pool, market data and last-known
 * state, and the write side (submitter, reconciler, earn client) on the host's /trade budget.
 * Feature services are built on top of a session by their feature (see core/features).
 */
export class NetworkSession {
  readonly network: ResolvedNetwork
  readonly info: InfoClient
  readonly pool: StreamPool | null
  readonly market: MarketDataCache
  readonly lastKnown: LastKnownState
  readonly journal: Journal
  readonly now: () => number
  private writeSide: WriteSide | null = null
  private streaming = false
  private closed = false
  private offJournal: (() => void) | null = null

  private constructor(
    private readonly connected: ConnectedNetwork,
    private readonly opts: NetworkSessionOptions,
  ) {
    const n = connected.network
    this.network = n
    this.journal = opts.journal
    this.now = opts.now ?? Date.now
    this.info = new InfoClient({ baseUrl: n.tradingUrl, scheduler: opts.schedulers.get(n.tradingUrl, 'info', n.infoRatePerSec) })
    const strict = strictLimitsFor(n)
    this.pool = opts.stream
      ? new StreamPool({
          wsUrl: n.wsUrl,
          info: this.info,
          strict,
          ...(strict ? { pollOverdueSpacingMs: Math.round((STRICT_OVERDUE_SPACING_REQUESTS * 1000) / n.infoRatePerSec) } : {}),
        })
      : null
    this.lastKnown = new LastKnownState(opts.journal, n.name, { now: this.now, flushMs: LAST_KNOWN_FLUSH_MS })
    this.market = new MarketDataCache(this.info, {
      now: this.now,
      lastKnown: this.lastKnown,
      ...(strict ? { refreshTtlMs: STRICT_MARKS_REFRESH_MS } : {}),
    })
  }

  static async open(opts: NetworkSessionOptions): Promise<NetworkSession> {
    const connected = await connectNetwork(opts.network, opts.startSandbox ? { startSandbox: opts.startSandbox } : {})
    return new NetworkSession(connected, opts)
  }

  get name(): string {
    return this.network.name
  }

  /** The write side, created on first use (it needs a vault) and reconciling in the background. */
  write(): WriteSide {
    if (this.closed) throw new DeskError('ShuttingDown', 'This network session is closed.')
    if (this.writeSide) return this.writeSide
    const vault = this.opts.vault()
    if (!vault) throw new DeskError('VaultMissing', 'Create the vault first: nothing can be signed without it.')
    const n = this.network
    this.writeSide = new WriteSide({
      ...this.opts.write,
      // Previews and writes read accounts streams first (see LiveAccountReads).
      reads:
        this.opts.write?.reads ??
        new LiveAccountReads({
          info: this.info,
          pool: this.pool,
          market: this.market,
          now: this.now,
          lastKnown: this.lastKnown,
          writes: { onChange: (l) => this.journal.onChange(l), network: n.name },
        }),
      network: n,
      journal: this.journal,
      vault,
      info: this.info,
      tradeScheduler: this.opts.schedulers.get(n.tradingUrl, 'trade', n.tradeRatePerSec),
      ...(this.opts.now ? { now: this.opts.now } : {}),
    })
    this.writeSide.start()
    return this.writeSide
  }

  /** Streams live state for these accounts (balances and credit state first, then fills and orders). */
  streamAccounts(accounts: { address: string; kind: 'balance' | 'credit' | 'unknown' }[]): void {
    const pool = this.pool
    if (!pool || this.closed) return
    pool.setAccounts(accounts)
    if (!this.streaming && accounts.length > 0) {
      this.streaming = true
      // Strict limits: accounts with pending writes stream (their outcome shows at once).
      const pending = new Map<number, string>()
      for (const sub of this.journal.unresolved(this.name)) pending.set(sub.id, sub.account)
      pool.setPriority('writes', [...pending.values()])
      this.offJournal = this.journal.onChange((sub) => {
        if (sub.network !== this.name) return
        if (PENDING.has(sub.state)) pending.set(sub.id, sub.account)
        else pending.delete(sub.id)
        pool.setPriority('writes', [...pending.values()]) // a no-op when the set is unchanged
      })
      pool.start()
    }
  }

  /** Starts reconciliation of unresolved journal entries now (start-up, unlock, reconnect). */
  reconcileSoon(): void {
    if (this.closed || !this.opts.vault()) return
    if (this.journal.unresolved(this.name).length > 0) this.write().kick()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.writeSide?.stop()
    if (this.writeSide?.reads instanceof LiveAccountReads) this.writeSide.reads.close()
    this.offJournal?.()
    await this.pool?.stop()
    await this.connected.close()
    this.lastKnown.flush()
  }
}
