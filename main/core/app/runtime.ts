import { mkdirSync } from 'node:fs'
import type { AccountView, Address, NotificationEvent, OverviewView, VaultStatus } from '../../contract/types'
import type { SandboxStarter } from '../config/networks'
import { SettingsStore } from '../config/settings'
import { DeskError } from '../errors/desk-error'
import { openJournal, type Journal, type Submission } from '../journal'
import type { Lane } from '../exchange/scheduler'
import type { AccountRef } from '../services/portfolio'
import { Vault, vaultPath } from '../vault'
import { AccountMetaStore } from './account-meta'
import { ConfirmBroker } from './confirm-broker'
import { EventHub } from './events'
import type { HostServices } from './host-services'
import { NetworkSession } from './network-session'
import { submissionView } from '../services/write-views'

export interface RuntimeOptions {
  dataDir: string
  host: 'electron' | 'web' | 'cli'
  version: string
  services: HostServices
  /** How the sandbox network is started in-process (default: on its configured ports). */
  startSandbox?: SandboxStarter
  /** Background refresh cadence of the overview push (ms); 0 disables it. */
  overviewRefreshMs?: number
  /** Vault scrypt cost for new vaults (tests use a cheap one). */
  scryptN?: number
  now?: () => number
}

/**
 * The state shared by every handler: settings, the vault, the journal, the confirmation broker
 * and the session of the selected network. One instance per host process.
 */
export class DeskRuntime {
  readonly events = new EventHub()
  readonly settings: SettingsStore
  readonly journal: Journal
  readonly meta: AccountMetaStore
  readonly confirm: ConfirmBroker
  readonly now: () => number
  private vaultInstance: Vault | null = null
  private sessionPromise: Promise<NetworkSession> | null = null
  private timers: ReturnType<typeof setTimeout>[] = []
  private stopJournalWatch: () => void = () => {}
  private closed = false
  private readonly startedAt: number
  /** Health warnings already announced (account + level), so each is notified once. */
  private readonly warned = new Set<string>()
  /** When the operator last typed the vault passphrase (unlock or create); null while locked. */
  private passphraseAt: number | null = null
  /** Accounts whose agent slots were read in this session. */
  private readonly agentsRead = new Set<string>()
  private readonly identities = new Map<string, Pick<AccountView, 'kind' | 'status' | 'accountIndex'>>()
  // Overview pushes: the last one sent (balance frames patch it), a full push at a time.
  private lastOverview: OverviewView | null = null
  private overviewTimer: ReturnType<typeof setTimeout> | null = null
  private patchTimer: ReturnType<typeof setTimeout> | null = null
  private readonly patchUsers = new Set<string>()
  private pushing: Promise<void> | null = null
  private pushAgain = false
  private lastStreamKey = ''
  private lastStreamAt = 0

  private constructor(readonly opts: RuntimeOptions) {
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 })
    this.now = opts.now ?? Date.now
    this.startedAt = this.now()
    this.settings = new SettingsStore(opts.dataDir)
    this.settings.load()
    this.journal = openJournal(opts.dataDir)
    this.meta = new AccountMetaStore(opts.dataDir)
    this.confirm = new ConfirmBroker(this.events)
  }

  static async open(opts: RuntimeOptions): Promise<DeskRuntime> {
    const rt = new DeskRuntime(opts)
    if (await Vault.exists(vaultPath(opts.dataDir))) rt.adoptVault(await Vault.open({ path: vaultPath(opts.dataDir) }))
    rt.startJournalWatch()
    // Connect to the selected network (start the sandbox) while the operator unlocks; an
    // unconfigured network reports its error when a screen asks for data.
    void rt.session().catch(() => {})
    if ((opts.overviewRefreshMs ?? 5000) > 0) rt.startOverviewPush(opts.overviewRefreshMs ?? 5000)
    return rt
  }

  // ---- vault -----------------------------------------------------------------------------

  get vault(): Vault | null {
    return this.vaultInstance
  }

  requireVault(): Vault {
    if (!this.vaultInstance) throw new DeskError('VaultMissing', 'Create the vault first (first-run screen or `desk keys init`).')
    return this.vaultInstance
  }

  requireUnlocked(): Vault {
    const v = this.requireVault()
    if (!v.isUnlocked) throw new DeskError('VaultLocked', 'Unlock the vault first.')
    return v
  }

  private adoptVault(v: Vault): void {
    this.vaultInstance = v
    const s = this.settings.load()
    v.setConfirmer(this.confirm)
    v.setAutoLockMs(s.autoLockMinutes * 60_000)
    v.setReentryWindowMs(s.passphraseWindowMinutes * 60_000)
    v.onEvent((e) => {
      if (e.type === 'locked') this.passphraseAt = null
      if (e.type === 'accountsChanged') void this.sessionPromise?.then((s) => s.streamAccounts(this.streamAccounts())).catch(() => {})
      this.events.emit('vault.status', this.vaultStatus())
      if (e.type === 'locked') {
        this.confirm.cancelAll()
        this.notify('lock', 'info', 'Vault locked', e.reason === 'idle' ? 'Locked after inactivity.' : e.reason === 'os' ? 'Locked because the system locked or suspended.' : 'Locked.')
      }
    })
  }

  async createVault(passphrase: string): Promise<VaultStatus> {
    if (this.vaultInstance || (await Vault.exists(vaultPath(this.opts.dataDir)))) throw new DeskError('VaultExists', 'A vault already exists in this data directory; unlock it instead.')
    const v = await Vault.create({ path: vaultPath(this.opts.dataDir), passphrase, ...(this.opts.scryptN ? { scrypt: { n: this.opts.scryptN, r: 8, p: 1 } } : {}) })
    this.adoptVault(v)
    this.passphraseAt = this.now()
    return this.vaultStatus()
  }

  async unlock(passphrase: string): Promise<VaultStatus> {
    const v = this.requireVault()
    await v.unlock(passphrase)
    this.passphraseAt = this.now()
    this.events.emit('vault.status', this.vaultStatus())
    return this.vaultStatus()
  }

  vaultStatus(): VaultStatus {
    const v = this.vaultInstance
    const autoLockMinutes = this.settings.load().autoLockMinutes
    return { exists: v !== null, unlocked: v?.isUnlocked ?? false, lastPassphraseAt: v?.isUnlocked ? this.passphraseAt : null, autoLockMinutes }
  }

  // ---- network session -------------------------------------------------------------------

  session(): Promise<NetworkSession> {
    if (this.closed) return Promise.reject(new DeskError('ShuttingDown', 'The app is shutting down.'))
    this.sessionPromise ??= NetworkSession.open({
      dataDir: this.opts.dataDir,
      journal: this.journal,
      vault: () => this.vaultInstance,
      ...(this.opts.startSandbox ? { startSandbox: this.opts.startSandbox } : {}),
      pendingJournal: (a) => this.journal.count({ account: a.toLowerCase(), state: ['signed', 'sent', 'unknown'] }),
    }).then(
      (s) => {
        s.reconcileSoon()
        this.attachStreams(s)
        return s
      },
      (e: unknown) => {
        this.sessionPromise = null
        throw e
      },
    )
    return this.sessionPromise
  }

  /** Live updates: stream changes refresh the overview soon; a reconnect triggers reconciliation. */
  private attachStreams(s: NetworkSession): void {
    const pool = s.read.pool
    if (!pool) return
    s.streamAccounts(this.streamAccounts())
    pool.subscribe((u) => {
      if (u.kind === 'fills') {
        for (const f of u.value.slice(-5)) {
          if (f.time < this.startedAt) continue
          this.notify('fill', 'success', `Fill: ${this.label(u.user) || u.user}`, `${f.side === 'B' ? 'bought' : f.side === 'A' ? 'sold' : 'traded'} ${f.sz ?? '?'} @ ${f.px ?? '?'} in market ${f.coin ?? '?'}`)
        }
      }
      if (u.kind === 'balances') this.patchSoon(s, u.user)
      else this.overviewSoon()
      this.streamStatus(pool)
    })
    pool.onReconnect(() => {
      this.streamStatus(pool, true)
      if (this.vaultInstance) s.reconcileSoon()
    })
    // A socket dropping is announced at once (the operator sees values start to age).
    pool.onStatusChange(() => this.streamStatus(pool))
  }

  /** Pushes the stream status when it changed, and otherwise at most every 2 s (its ages tick). */
  private streamStatus(pool: NonNullable<NetworkSession['read']['pool']>, force = false): void {
    const st = pool.status()
    const key = `${st.connected}/${st.connections}/${st.subscriptions}/${st.reconnects}`
    if (!force && key === this.lastStreamKey && this.now() - this.lastStreamAt < 2000) return
    this.lastStreamKey = key
    this.lastStreamAt = this.now()
    this.events.emit('stream.status', st)
  }

  private streamAccounts(): { address: string; kind: 'balance' | 'credit' | 'unknown' }[] {
    return this.accountRefs().map((r) => ({ address: r.address, kind: this.identities.get(r.address)?.kind ?? 'unknown' }))
  }

  /** Coalesces bursts of stream updates into one full overview push a quarter second later. */
  private overviewSoon(): void {
    if (this.overviewTimer || this.closed) return
    this.overviewTimer = setTimeout(() => {
      this.overviewTimer = null
      this.runPush()
    }, 250)
  }

  /**
   * A balance frame: patch that account's row from live state and cached marks (no request),
   * so the change is on screen within a frame or two; fall back to a full push when it can't.
   */
  private patchSoon(s: NetworkSession, user: string): void {
    this.patchUsers.add(user.toLowerCase())
    if (this.patchTimer || this.closed) return
    this.patchTimer = setTimeout(() => {
      this.patchTimer = null
      const users = new Set(this.patchUsers)
      this.patchUsers.clear()
      const patched = this.lastOverview ? s.read.portfolio.patchOverview(this.lastOverview, users) : null
      if (!patched) return this.overviewSoon()
      this.lastOverview = patched
      this.events.emit('state.overview', patched)
    }, 16)
  }

  /** One full push at a time; a request during one runs once more after it (no pile-up on the budget). */
  private runPush(): void {
    if (this.pushing) {
      this.pushAgain = true
      return
    }
    this.pushing = this.pushOverview()
      .catch(() => {})
      .finally(() => {
        this.pushing = null
        if (this.pushAgain && !this.closed) {
          this.pushAgain = false
          this.runPush()
        }
      })
  }

  /** The overview of every account; remembered as the base that balance frames patch. */
  async overview(lane: Lane): Promise<OverviewView> {
    const s = await this.session()
    const view = await s.read.portfolio.overview(this.accountRefs(), lane)
    let kindsChanged = false
    for (const row of view.rows) {
      if (this.identities.get(row.account.address)?.kind !== row.account.kind) kindsChanged = true
      this.rememberIdentity(row.account.address, row.account)
    }
    if (kindsChanged) s.streamAccounts(this.streamAccounts())
    this.lastOverview = view
    this.readAgentSlotsOnce(s, view)
    return view
  }

  /**
   * The overview counts agents from the last slot read; accounts never read yet get one
   * background read each per session, then the overview is pushed again.
   */
  private readAgentSlotsOnce(s: NetworkSession, view: OverviewView): void {
    for (const row of view.rows) {
      const a = row.account.address
      if (row.account.status === 'none' || this.agentsRead.has(a)) continue
      this.agentsRead.add(a)
      s.read.agents.slots(a, 'background').then(
        () => this.overviewSoon(),
        () => this.agentsRead.delete(a),
      )
    }
  }

  private async pushOverview(): Promise<void> {
    if (this.accountRefs().length === 0 || this.closed) return
    const view = await this.overview('background')
    this.events.emit('state.overview', view)
    const pool = (await this.session()).read.pool
    if (pool) this.streamStatus(pool)
  }

  async resetSession(): Promise<void> {
    const old = this.sessionPromise
    this.sessionPromise = null
    this.identities.clear()
    this.agentsRead.clear()
    if (old) await old.then((s) => s.close()).catch(() => {})
  }

  // ---- accounts ----------------------------------------------------------------------------

  accountRefs(): AccountRef[] {
    const v = this.vaultInstance
    if (!v) return []
    return v.listAccounts().map((a) => ({ address: a.address.toLowerCase() as Address, label: a.label, group: this.meta.group(a.address), hasKey: !a.watchOnly }))
  }

  rememberIdentity(address: string, id: Pick<AccountView, 'kind' | 'status' | 'accountIndex'>): void {
    this.identities.set(address.toLowerCase(), id)
  }

  accountView(ref: AccountRef): AccountView {
    const id = this.identities.get(ref.address.toLowerCase())
    return { ...ref, kind: id?.kind ?? 'unknown', status: id?.status ?? 'unknown', accountIndex: id?.accountIndex ?? null }
  }

  accountViews(): AccountView[] {
    return this.accountRefs().map((r) => this.accountView(r))
  }

  label(address: string): string {
    return this.accountRefs().find((r) => r.address === address.toLowerCase())?.label ?? ''
  }

  // ---- pushed events -------------------------------------------------------------------------

  notify(kind: NotificationEvent['kind'], level: NotificationEvent['level'], title: string, message: string): void {
    this.events.emit('notify', { id: `${this.now()}-${Math.random().toString(36).slice(2, 8)}`, kind, level, title, message, atMs: this.now() })
  }

  private every(ms: number, fn: () => Promise<void> | void): void {
    const tick = async () => {
      if (this.closed) return
      try {
        await fn()
      } catch {
        // A failed background pass is retried on the next tick; operator calls report their own errors.
      }
      if (!this.closed) this.timers.push(setTimeout(tick, ms))
    }
    this.timers.push(setTimeout(tick, ms))
  }

  /** Pushes every journal change (new entries, moves by the submitter or the reconciler). */
  private startJournalWatch(): void {
    const off = this.journal.onChange((s) => {
      this.events.emit('journal.changed', submissionView(this.journal, s))
      this.notifySubmission(s)
    })
    this.stopJournalWatch = off
  }

  private notifySubmission(s: Submission): void {
    if (s.state === 'rejected') this.notify('rejection', 'error', `Rejected: ${s.actionType}`, `${s.code ?? 'rejected'} — ${s.summary}`)
    else if (s.state === 'unknown') this.notify('rejection', 'warning', `Outcome unknown: ${s.actionType}`, `Reconciling by cloid ${s.key}; do not resubmit. ${s.summary}`)
    else if (s.state === 'reconciled') this.notify('info', 'info', `Reconciled: ${s.actionType}`, `${s.finalStatus ?? ''} — ${s.summary}`)
  }

  /** Keeps the overview fresh in the background (the /info background lane yields to the operator). */
  private startOverviewPush(ms: number): void {
    this.every(ms, async () => {
      this.runPush()
      await this.pushing
      for (const row of this.lastOverview?.rows ?? []) {
        if (row.credit && (row.credit.warning === 'critical' || row.credit.warning === 'frozen') && !this.warned.has(row.account.address + row.credit.warning)) {
          this.warned.add(row.account.address + row.credit.warning)
          this.notify('health', 'warning', `Credit health ${row.credit.warning}: ${row.account.label || row.account.address}`, `Available ${row.credit.availableUsd ?? 'unknown'} USD of ${row.credit.creditUsd} USD.`)
        }
      }
    })
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  touch(): void {
    this.vaultInstance?.touch()
  }

  lock(reason: 'os' | 'idle' | 'operator'): void {
    this.vaultInstance?.lock(reason === 'operator' ? 'manual' : reason)
  }

  externalHosts(): string[] {
    const hosts = new Set<string>()
    for (const n of this.settings.networks()) {
      for (const u of [n.tradingUrl, n.earnUrl]) {
        if (!u) continue
        try {
          const url = new URL(u)
          if (url.protocol === 'https:') hosts.add(url.hostname)
        } catch {
          // unset or malformed URLs are simply not allowed
        }
      }
    }
    return [...hosts]
  }

  /** Stops background work, lets in-flight writes reach the journal, then closes it. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const t of this.timers) clearTimeout(t)
    if (this.overviewTimer) clearTimeout(this.overviewTimer)
    if (this.patchTimer) clearTimeout(this.patchTimer)
    this.stopJournalWatch()
    this.confirm.cancelAll()
    await this.resetSession()
    this.vaultInstance?.lock('manual')
    await this.journal.close()
  }
}
