import type { VaultStatus } from '../../../contract/types'
import type { SettingsStore } from '../../config/settings'
import { DeskError } from '../../errors/desk-error'
import type { ConfirmBroker } from '../../ipc/confirm-broker'
import type { EventHub } from '../../ipc/events'
import type { Notify } from '../../ipc/notify'
import { Vault, vaultPath } from '../../vault'
import { SOLO_CUSTODY, type CustodyGuard } from './custody-guard'

export interface VaultHolderDeps {
  dataDir: string
  settings: SettingsStore
  confirm: ConfirmBroker
  events: EventHub
  notify: Notify
  now: () => number
  /** scrypt cost for vaults created here (tests use a cheap one) */
  scryptN?: number
}

/** The data directory's vault: opened at start when it exists, created on first run, locked and unlocked. */
export class VaultHolder {
  private vault: Vault | null = null
  /** When the operator last typed the vault passphrase (unlock or create); null while locked. */
  private passphraseAt: number | null = null
  private readonly accountListeners = new Set<() => void>()
  private guard: CustodyGuard = SOLO_CUSTODY

  constructor(private readonly d: VaultHolderDeps) {}

  async open(): Promise<void> {
    const path = vaultPath(this.d.dataDir)
    if (await Vault.exists(path)) this.adopt(await Vault.open({ path }))
  }

  get current(): Vault | null {
    return this.vault
  }

  /** How custody changes (key export, add, remove, passphrase) are judged: team mode installs its own. */
  get custody(): CustodyGuard {
    return this.guard
  }

  setCustodyGuard(guard: CustodyGuard): void {
    this.guard = guard
  }

  /** Called when accounts are added or removed (streams follow the vault's accounts). */
  onAccountsChanged(listener: () => void): () => void {
    this.accountListeners.add(listener)
    return () => this.accountListeners.delete(listener)
  }

  require(): Vault {
    if (!this.vault) throw new DeskError('VaultMissing', 'Create the vault first (first-run screen or `desk keys init`).')
    return this.vault
  }

  requireUnlocked(): Vault {
    const v = this.require()
    if (!v.isUnlocked) throw new DeskError('VaultLocked', 'Unlock the vault first.')
    return v
  }

  async create(passphrase: string): Promise<VaultStatus> {
    const path = vaultPath(this.d.dataDir)
    if (this.vault || (await Vault.exists(path)))
      throw new DeskError('VaultExists', 'A vault already exists in this data directory; unlock it instead.')
    const v = await Vault.create({ path, passphrase, ...(this.d.scryptN ? { scrypt: { n: this.d.scryptN, r: 8, p: 1 } } : {}) })
    this.adopt(v)
    this.passphraseAt = this.d.now()
    return this.status()
  }

  async unlock(passphrase: string): Promise<VaultStatus> {
    const v = this.require()
    await v.unlock(passphrase)
    this.passphraseAt = this.d.now()
    this.d.events.emit('vault.status', this.status())
    return this.status()
  }

  lock(reason: 'os' | 'idle' | 'operator'): void {
    this.vault?.lock(reason === 'operator' ? 'manual' : reason)
  }

  /** Operator activity: resets the idle auto-lock timer. */
  touch(): void {
    this.vault?.touch()
  }

  /** Applies the timing settings (auto-lock, passphrase re-entry window). */
  applySettings(): void {
    const s = this.d.settings.load()
    this.vault?.setAutoLockMs(s.autoLockMinutes * 60_000)
    this.vault?.setReentryWindowMs(s.passphraseWindowMinutes * 60_000)
  }

  status(): VaultStatus {
    const v = this.vault
    const autoLockMinutes = this.d.settings.load().autoLockMinutes
    return {
      exists: v !== null,
      unlocked: v?.isUnlocked ?? false,
      lastPassphraseAt: v?.isUnlocked ? this.passphraseAt : null,
      autoLockMinutes,
    }
  }

  private adopt(v: Vault): void {
    this.vault = v
    v.setConfirmer(this.d.confirm)
    this.applySettings()
    v.onEvent((e) => {
      if (e.type === 'locked') this.passphraseAt = null
      if (e.type === 'accountsChanged') for (const l of this.accountListeners) l()
      this.d.events.emit('vault.status', this.status())
      if (e.type === 'locked') {
        this.d.confirm.cancelAll()
        this.d.notify(
          'lock',
          'info',
          'Vault locked',
          e.reason === 'idle'
            ? 'Locked after inactivity.'
            : e.reason === 'os'
              ? 'Locked because the system locked or suspended.'
              : 'Locked.',
        )
      }
    })
  }
}
