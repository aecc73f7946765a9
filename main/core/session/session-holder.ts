import type { SettingsStore } from '../config/settings'
import { DeskError } from '../errors/desk-error'
import { NetworkSession, type NetworkSessionOptions } from './network-session'
import type { WriteSide } from './write-side'

/** Where features get the selected network's session (the one place that opens it). */
export interface SessionSource {
  current(): Promise<NetworkSession>
}

type OpenOptions = Omit<NetworkSessionOptions, 'network'>

/**
 * Holds the session of the selected network: opened on first use from the one setting every
 * host reads (`selectedNetwork`), replaced when the operator selects another network.
 */
export class SessionHolder implements SessionSource {
  private pending: Promise<NetworkSession> | null = null
  private readonly openedListeners = new Set<(s: NetworkSession) => void>()
  private closed = false

  constructor(
    private readonly settings: SettingsStore,
    private readonly options: OpenOptions,
  ) {}

  /** Called with each newly opened session (live state attaches here). */
  onOpened(listener: (s: NetworkSession) => void): () => void {
    this.openedListeners.add(listener)
    return () => this.openedListeners.delete(listener)
  }

  current(): Promise<NetworkSession> {
    if (this.closed) return Promise.reject(new DeskError('ShuttingDown', 'The app is shutting down.'))
    this.pending ??= NetworkSession.open({ ...this.options, network: this.settings.selected() }).then(
      (s) => {
        for (const l of this.openedListeners) l(s)
        return s
      },
      (e: unknown) => {
        this.pending = null
        throw e
      },
    )
    return this.pending
  }

  /** The open session, if any, without opening one. */
  async ifOpen(): Promise<NetworkSession | null> {
    return this.pending ? this.pending.catch(() => null) : null
  }

  /** Closes the current session; the next `current()` opens the (newly) selected network. */
  async reset(): Promise<void> {
    const old = this.pending
    this.pending = null
    if (old) await old.then((s) => s.close()).catch(() => {})
  }

  async close(): Promise<void> {
    this.closed = true
    await this.reset()
  }
}

/** What a write needs: the session, and a vault that is unlocked. */
export interface WriteAccess {
  sessions: SessionSource
  vault: { requireUnlocked(): unknown }
}

/** The selected network's write side, refusing while the vault is locked. */
export async function unlockedWriteSide(d: WriteAccess): Promise<WriteSide> {
  d.vault.requireUnlocked()
  return (await d.sessions.current()).write()
}
