/**
 * The desk's link to the team store: opens it when the vault unlocks (password from the vault),
 * verifies the chain, installs the TeamGate as the write pipeline's decision step, follows the
 * store's LISTEN/NOTIFY push (no polling loop) and keeps the link state (`live`, `unreachable`,
 * `tampered`, ...). A configured desk never falls back to ALLOW_ALL: while the store is not open,
 * team writes are refused (typed) and nothing is lost.
 */
import type { Hex } from 'viem'
import type { TeamLinkState } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { EventHub } from '../../ipc/events'
import { TeamErrors, TeamStore, type LogSubscription, type Roster, type TeamSigner, type TeamState } from '../../team'
import { ALLOW_ALL, type WriteGate, type WriteIntent } from '../../writes/decision'
import type { ProposalBody } from '../../team'
import type { VaultHolder } from '../vault'
import { bindVault, boundElsewhere, keepHead, readBinding, type ChainHead } from './binding'
import { readTeamConfig, removeTeamConfig, writeTeamConfig, type TeamConfig } from './config'
import type { ExecutedCheck } from './executed-check'
import { TeamGate } from './team-gate'
import type { ViewerFacts } from './views'

/** How long a write waits for the team store to open before it is refused (typed, nothing signed). */
export const OPEN_WAIT_MS = 10_000

const notConfigured = () => new DeskError('TeamNotConfigured', 'team mode is not configured on this desk (desk team configure)')

/** While the store is not open on a configured desk: every write refused, nothing signed. */
function refusingGate(code: string, reason: () => string): WriteGate {
  return { decide: async () => ({ verdict: 'block', code, reason: reason() }) }
}

/** What the rest of team mode hears from the link. */
export interface LinkHooks {
  /** The chain verified after a push, an open or a write (proposals may have changed). */
  verified(state: TeamState): void
  /** The link state or its detail changed. */
  changed(): void
  /** The store opened and its push is subscribed. */
  opened(): void
  /** New entries arrived by push (after they were verified). */
  entries(): void
  /** The admin changes collecting signatures changed (pushed), or the push (re)connected. */
  changes(): void
  /** A custody signing request or release was stored (or the push reconnected: null). */
  custody?(what: string | null): void
  /** The store is being released: whatever uses it stops (and is waited for). */
  releasing(): Promise<void>
}

export interface TeamLinkDeps {
  dataDir: string
  vault: VaultHolder
  events: EventHub
  setGate(gate: WriteGate): void
  now: () => number
  proposalTtlMs?: number | undefined
  leaseMs?: number | undefined
  replayOf(intent: WriteIntent): ProposalBody['replay'] | undefined
  /** asks the exchange whether an approved proposal's cloid already executed, before it is signed */
  executed?: ExecutedCheck | undefined
  /** whether an account's owner key is held by the team's shares (its allowed writes are recorded before signing) */
  custodyHeld?: ((account: string) => boolean) | undefined
}

export class TeamLink {
  private cfg: TeamConfig | null
  private storeNow: TeamStore | null = null
  private gateNow: TeamGate | null = null
  private sub: LogSubscription | null = null
  private linkState: TeamLinkState = 'off'
  private linkDetail = 'no team store configured: this desk works alone'
  private opening: Promise<void> | null = null
  /** Counts the push connection's reports of a lost store (see refresh). */
  private lostAt = 0
  private retry: NodeJS.Timeout | null = null
  private retryMs = 500
  private closed = false
  private hooks: LinkHooks | null = null

  constructor(private readonly d: TeamLinkDeps) {
    this.cfg = readTeamConfig(d.dataDir)
    if (this.cfg) {
      this.linkState = 'connecting'
      this.linkDetail = 'unlock the vault to open the team store'
      d.setGate(this.waitingGate())
    }
    d.events.subscribe((event, payload) => {
      if (event !== 'vault.status') return
      if ((payload as { unlocked: boolean }).unlocked) {
        this.refuseIfUnbound()
        void this.open().catch(() => {})
      } else void this.release('vault locked')
    })
  }

  listen(hooks: LinkHooks): void {
    this.hooks = hooks
  }

  get config(): TeamConfig | null {
    return this.cfg
  }
  get state(): TeamLinkState {
    return this.linkState
  }
  get detail(): string {
    return this.linkDetail
  }
  get gate(): TeamGate | null {
    return this.gateNow
  }
  get store(): TeamStore | null {
    return this.storeNow
  }
  get isClosed(): boolean {
    return this.closed
  }

  /** Keeps a new configuration (written to the data directory). */
  setConfig(c: TeamConfig): void {
    this.cfg = c
    writeTeamConfig(this.d.dataDir, c)
  }

  /** This desk's operator identity key (vault), as a signer of team entries. */
  operator(): TeamSigner {
    const vault = this.d.vault.require()
    return {
      get address() {
        const a = vault.identityAddress()
        if (!a) throw new DeskError('IdentityKeyMissing', 'this vault has no operator identity key: desk team join creates one')
        return a
      },
      signTypedData: (td) => vault.signAsIdentity(td),
    }
  }

  /** Who is looking: this operator's identity, now, and which accounts this desk's vault can sign for. */
  facts(): ViewerFacts {
    const vault = this.d.vault.current
    const me = vault?.identityAddress()?.toLowerCase() ?? null
    const keyed = new Set((vault?.listAccounts() ?? []).filter((a) => !a.watchOnly).map((a) => a.address.toLowerCase()))
    return { me, now: this.d.now(), canSignFor: (a) => keyed.has(a.toLowerCase()) }
  }

  /**
   * The gate while the store is not open: a write waits for the open under way (the vault was just
   * unlocked, by the app or by a `desk` command) up to OPEN_WAIT_MS, then is decided by the team
   * gate; a store that does not open in time refuses it typed (TeamStoreUnreachable), nothing signed.
   */
  private waitingGate(): WriteGate {
    return {
      decide: async (intent) => {
        const gate = await this.openedGate(OPEN_WAIT_MS)
        if (gate) return gate.decide(intent)
        return {
          verdict: 'block',
          code: TeamErrors.unreachable,
          reason: `team store not open after waiting ${OPEN_WAIT_MS / 1000} s (${this.linkDetail}); nothing was signed`,
        }
      },
    }
  }

  /** The team gate once the store is open, waiting up to `ms` for an open under way; null when it is not. */
  private async openedGate(ms: number): Promise<TeamGate | null> {
    if (this.gateNow) return this.gateNow
    if (!this.cfg || this.closed || !this.d.vault.current?.isUnlocked) return null
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      this.open().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms)
        timer.unref?.()
      }),
    ])
    clearTimeout(timer)
    return this.gateNow
  }

  /**
   * A vault bound to a team (binding.ts) on a desk with no team configured: every write is refused.
   * Moving team.json away, or copying the vault to a fresh data directory, does not leave the team.
   */
  private refuseIfUnbound(): void {
    if (this.cfg) return
    const vault = this.d.vault.current
    if (!vault?.isUnlocked) return
    let bound
    try {
      bound = readBinding(vault)
    } catch (e) {
      this.d.setGate(refusingGate('VaultCorrupt', () => (e as Error).message))
      return
    }
    if (!bound) return
    const err = boundElsewhere(bound, undefined)
    this.linkState = 'tampered'
    this.linkDetail = err.message
    this.d.setGate(refusingGate(err.code, () => err.message))
    this.hooks?.changed()
  }

  /** The genesis this desk trusts: the vault's binding first (team.json is only a copy); a mismatch is refused. */
  private trustedGenesis(vault: NonNullable<VaultHolder['current']>, config: TeamConfig): Hex | undefined {
    const bound = readBinding(vault)
    if (bound && config.genesisDigest && bound.genesis !== config.genesisDigest.toLowerCase())
      throw boundElsewhere(bound, config.genesisDigest)
    return (bound?.genesis ?? config.genesisDigest) as Hex | undefined
  }

  /** The highest verified head, kept in the vault's binding (never lowered; see verified-chain.ts). */
  private headKeeper(vault: NonNullable<VaultHolder['current']>): { kept(): ChainHead | null; keep(h: ChainHead): Promise<void> } {
    let kept = readBinding(vault)?.head ?? null
    return {
      kept: () => kept,
      keep: async (h) => {
        const v = this.d.vault.current
        if (!v?.isUnlocked) return
        const genesis = (readBinding(v)?.genesis ?? this.cfg?.genesisDigest) as Hex | undefined
        if (!genesis) return
        // A desk that verified a chain it is a member of is bound to it (desks that joined before the binding existed, too).
        const me = v.identityAddress()?.toLowerCase()
        const member = me !== undefined && (this.gateNow?.report().state.roster?.members.has(me) ?? false)
        if (me && member && !readBinding(v)) await bindVault(v, genesis, me)
        await keepHead(v, genesis, h)
        if (!kept || h.seq > kept.seq) kept = h
      },
    }
  }

  /** Opens the store with the vault's password and verifies the chain; on failure, retries with backoff (the push reconnects by itself once open). */
  open(): Promise<void> {
    if (!this.cfg || this.closed) return Promise.resolve()
    return (this.opening ??= this.doOpen().finally(() => (this.opening = null)))
  }

  private async doOpen(): Promise<void> {
    const config = this.cfg!
    if (this.storeNow) return
    const vault = this.d.vault.current
    if (!vault?.isUnlocked) return
    this.setLink('connecting', 'opening the team store')
    let store: TeamStore
    try {
      store = await TeamStore.open({
        connectionString: config.connectionString,
        password: vault.teamSecret('teamStorePassword') ?? undefined,
      })
    } catch (e) {
      this.setLink('unreachable', `team store unreachable: ${(e as Error).message}`)
      this.scheduleRetry()
      throw e
    }
    if (this.closed || !this.d.vault.current?.isUnlocked) {
      await store.close()
      return
    }
    let genesisDigest: Hex | undefined
    try {
      genesisDigest = this.trustedGenesis(this.d.vault.current!, config)
    } catch (e) {
      await store.close()
      const err = e as DeskError
      this.d.setGate(refusingGate(err.code, () => err.message))
      this.setLink('tampered', err.message)
      throw e
    }
    this.storeNow = store
    this.retryMs = 500
    const gate = new TeamGate({
      store,
      operator: this.operator(),
      deskId: config.deskId,
      ...(genesisDigest ? { genesisDigest } : {}),
      heads: this.headKeeper(this.d.vault.current!),
      ...(this.d.executed ? { executed: this.d.executed } : {}),
      ...(this.d.custodyHeld ? { custodyHeld: this.d.custodyHeld } : {}),
      now: this.d.now,
      replayOf: (i) => this.d.replayOf(i),
      ...(this.d.proposalTtlMs ? { proposalTtlMs: this.d.proposalTtlMs } : {}),
      ...(this.d.leaseMs ? { leaseMs: this.d.leaseMs } : {}),
    })
    this.gateNow = gate
    this.d.setGate(gate)
    await this.refresh()
    this.sub = store.subscribe(
      {
        onEntries: () => void this.refresh().then(() => this.hooks?.entries()),
        onChanges: () => this.hooks?.changes(),
        onCustody: (what) => this.hooks?.custody?.(what),
        onStatus: (s, err) => {
          if (s === 'unreachable') {
            this.lostAt++
            this.setLink('unreachable', `team store unreachable${err ? `: ${err.message}` : ''}; team writes are refused until it returns`)
          } else void this.refresh()
        },
      },
      gate.report().state.head?.seq ?? -1n,
    )
    await this.sub.ready.catch(() => {})
    this.hooks?.opened()
  }

  private scheduleRetry(): void {
    if (this.retry || this.closed) return
    this.retry = setTimeout(() => {
      this.retry = null
      void this.open().catch(() => {})
    }, this.retryMs)
    this.retry.unref?.()
    this.retryMs = Math.min(this.retryMs * 2, 10_000)
  }

  /** Re-verifies what the store holds now; the hooks hear the verified state (or the link state changed). */
  async refresh(): Promise<void> {
    const gate = this.gateNow
    if (!gate) return
    // A refresh that read the store before the push connection reported it lost must not say
    // `live` after that report: the newer word stands until the push reconnects (which refreshes).
    const lost = this.lostAt
    try {
      const state = await gate.sync()
      await this.pinGenesis(state)
      if (this.lostAt === lost) this.setLink('live', `verified ${gate.report().verified} entries`, false)
      this.hooks?.verified(state)
    } catch (e) {
      const err = e as DeskError
      if (err.code === TeamErrors.tampered || err.code === TeamErrors.rolledBack) this.setLink('tampered', err.message)
      else if (err.code === TeamErrors.unreachable)
        this.setLink('unreachable', `team store unreachable: ${err.message}; team writes are refused until it returns`)
      else if (err.code === TeamErrors.refused && !gate.report().state.roster)
        this.setLink('live', 'connected; the team has no genesis yet (desk team init)')
      else this.setLink('unreachable', err.message)
    }
  }

  /** The first genesis this desk verified is the one it trusts from now on (a replaced chain is refused). */
  private async pinGenesis(state: TeamState): Promise<void> {
    if (!this.cfg || this.cfg.genesisDigest || !state.roster || !this.storeNow) return
    const [genesis] = await this.storeNow.readLog(0n, 1)
    if (!genesis) return
    const vault = this.d.vault.current
    const me = vault?.identityAddress()?.toLowerCase()
    if (vault?.isUnlocked && me && state.roster.members.has(me)) await bindVault(vault, genesis.digest as Hex, me)
    this.setConfig({ ...this.cfg, genesisDigest: genesis.digest })
  }

  private setLink(state: TeamLinkState, detail: string, push = true): void {
    const changed = state !== this.linkState || detail !== this.linkDetail
    this.linkState = state
    this.linkDetail = detail
    if (changed || push) this.hooks?.changed()
  }

  /** Vault locked or core closing: the store and the push are released; a configured desk keeps refusing writes. */
  async release(reason: string): Promise<void> {
    if (this.retry) clearTimeout(this.retry)
    this.retry = null
    const sub = this.sub
    const store = this.storeNow
    this.sub = null
    this.storeNow = null
    this.gateNow = null
    const stopping = this.hooks?.releasing()
    if (this.cfg) {
      this.d.setGate(this.waitingGate())
      this.setLink('connecting', `${reason}: unlock the vault to open the team store`)
    }
    await sub?.close().catch(() => {})
    // A takeover in flight finishes (or fails typed) before its store closes.
    await stopping?.catch(() => {})
    await store?.close().catch(() => {})
  }

  /** This desk left its team (admin.ts leave): the store released, team.json removed, the desk alone again. */
  async forget(): Promise<void> {
    await this.release('left the team')
    this.cfg = null
    removeTeamConfig(this.d.dataDir)
    this.d.setGate(ALLOW_ALL)
    this.setLink('off', 'no team store configured: this desk works alone')
  }

  async close(): Promise<void> {
    this.closed = true
    await this.opening?.catch(() => {})
    await this.release('closing')
  }

  /** The open store and its gate, unsynced (a tampered chain too: `team verify` reports it). */
  async opened(): Promise<{ gate: TeamGate; store: TeamStore }> {
    if (!this.cfg) throw notConfigured()
    if (!this.gateNow) {
      await this.open().catch(() => {})
      if (!this.gateNow) {
        if (!this.d.vault.current?.isUnlocked) throw new DeskError('VaultLocked', 'the vault is locked; unlock it to reach the team store')
        throw new DeskError(TeamErrors.unreachable, `team store unreachable (${this.linkDetail}); team writes are refused until it returns`)
      }
    }
    return { gate: this.gateNow, store: this.storeNow! }
  }

  /** The gate, synced now: TeamStoreUnreachable / TeamChainTampered typed as they come. */
  async live(): Promise<{ gate: TeamGate; store: TeamStore; state: TeamState }> {
    const { gate, store } = await this.opened()
    try {
      const state = await gate.sync()
      return { gate, store, state }
    } catch (e) {
      await this.refresh()
      if (e instanceof DeskError && e.code === TeamErrors.refused && !gate.report().state.roster)
        return { gate, store, state: gate.report().state }
      throw e
    }
  }

  /** As live(), with the verified roster (TeamNoGenesis before the first admin's init). */
  async roster(): Promise<{ gate: TeamGate; store: TeamStore; state: TeamState; roster: Roster }> {
    const l = await this.live()
    if (!l.state.roster) throw new DeskError('TeamNoGenesis', 'the team has no genesis yet: the first admin runs desk team init')
    return { ...l, roster: l.state.roster }
  }
}
