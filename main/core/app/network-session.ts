import type { SandboxStarter } from '../config/networks'
import { DeskError } from '../errors/desk-error'
import type { Journal } from '../journal'
import { openReadSide, type ReadSide } from '../services/read-side'
import { WriteSession, type WriteVault } from '../services/write-session'
import type { Vault } from '../vault'

/**
 * Everything bound to the selected network: the read side (/info client, market data,
 * portfolio, credit health, agents) and the write side (submitter, reconciler, earn client).
 * Both share one /info scheduler, so the host's rate budget holds across them.
 */
export class NetworkSession {
  private writeSession: WriteSession | null = null
  private streaming = false

  private constructor(
    readonly read: ReadSide,
    private readonly journal: Journal,
    private readonly vault: () => Vault | null,
  ) {}

  static async open(opts: { dataDir: string; journal: Journal; vault: () => Vault | null; startSandbox?: SandboxStarter; pendingJournal: (a: string) => number }): Promise<NetworkSession> {
    const read = await openReadSide({
      dataDir: opts.dataDir,
      journal: opts.journal,
      // Looked up on each read, so a vault created or replaced later is seen without reconnecting.
      vault: { listAccounts: () => opts.vault()?.listAccounts() ?? [] },
      pool: true,
      ...(opts.startSandbox ? { startSandbox: opts.startSandbox } : {}),
      pendingJournal: opts.pendingJournal,
    })
    return new NetworkSession(read, opts.journal, opts.vault)
  }

  get name(): string {
    return this.read.connected.network.name
  }

  /** The write side, created on first use (it needs a vault) and reconciling in the background. */
  write(): WriteSession {
    if (this.writeSession) return this.writeSession
    const vault = this.vault()
    if (!vault) throw new DeskError('VaultMissing', 'Create the vault first: nothing can be signed without it.')
    this.writeSession = new WriteSession({ network: this.read.connected.network, journal: this.journal, vault: vault as WriteVault, info: this.read.info })
    this.writeSession.start()
    return this.writeSession
  }

  /** Streams live state for these accounts (balances and credit state first, then fills and orders). */
  streamAccounts(accounts: { address: string; kind: 'balance' | 'credit' | 'unknown' }[]): void {
    const pool = this.read.pool
    if (!pool) return
    pool.setAccounts(accounts)
    if (!this.streaming && accounts.length > 0) {
      this.streaming = true
      pool.start()
    }
  }

  /** Starts reconciliation of unresolved journal entries now (start-up, reconnect). */
  reconcileSoon(): void {
    if (this.vault() && this.journal.unresolved(this.name).length > 0) this.write().kick()
  }

  async close(): Promise<void> {
    await this.writeSession?.stop()
    await this.read.close()
  }
}
