/**
 * Team mode in main: opens the team store when the vault unlocks (password from the vault),
 * verifies the chain, installs the TeamGate as the write pipeline's decision step, follows the
 * store's LISTEN/NOTIFY push (no polling loop) and pushes `state.team`. A desk with no team
 * configuration keeps ALLOW_ALL exactly as before; a configured desk never falls back to it: while
 * the store is not open, team writes are refused (typed) and nothing is lost.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Hex } from 'viem'
import type {
  Address,
  ExportFile,
  TeamLinkState,
  TeamMembersView,
  TeamPolicyView,
  TeamProposalDetail,
  TeamProposalView,
  TeamRole,
  TeamRuleView,
  TeamStatusView,
  TeamVerifyView,
  WriteOutcome,
} from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { EventHub } from '../../ipc/events'
import type { Notify } from '../../ipc/notify'
import type { Result } from '../../../contract/types'
import {
  TeamErrors,
  TeamStore,
  isTeamUnreachable,
  exportCsv,
  genesisEntry,
  logToCsv,
  policyEntry,
  rosterEntry,
  signedEntry,
  verifyStore,
  type LogSubscription,
  type ProposalBody,
  type RosterChange,
  type TeamSigner,
  type TeamState,
} from '../../team'
import type { WriteGate, WriteIntent } from '../../writes/decision'
import type { VaultHolder } from '../vault'
import { newDeskId, readTeamConfig, storeLocation, withoutPassword, writeTeamConfig, type TeamConfig } from './config'
import { TeamGate } from './team-gate'
import type { TakeoverSender } from './takeover'
import { canApprove, membersView, policyVersionView, proposalView, ruleView, type ViewerFacts } from './views'

/** A rule as the channel's schema validated it (addresses checked, any case). */
export type TeamRuleInput = Omit<TeamRuleView, 'accounts' | 'destinations'> & { accounts?: string[]; destinations?: string[] }

type Dispatch = (
  channel: string,
  args: unknown,
  ctx: { host: 'electron' | 'web' | 'test' | 'cli'; client?: string },
) => Promise<Result<unknown>>

/** Channels whose write can be replayed with its fixed cloid (their schema takes `cloid`). */
const REPLAYABLE = new Set(['settle.submit', 'repay.submit', 'transfer.submit', 'withdraw.submit', 'activate.submit', 'orders.place'])
/** The query that previews each replayable write from live data (approvers recompute their own). */
const PREVIEW_OF: Record<string, string> = {
  'settle.submit': 'settle.preview',
  'repay.submit': 'repay.preview',
  'transfer.submit': 'transfer.preview',
  'withdraw.submit': 'withdraw.preview',
  'orders.place': 'orders.check',
}
/** Never stored in a proposal, whatever a channel carries. */
const SECRET_ARGS = new Set(['passphrase', 'password', 'confirmText'])

const notConfigured = () => new DeskError('TeamNotConfigured', 'team mode is not configured on this desk (desk team configure)')

/** While the store is not open on a configured desk: every write refused, nothing signed. */
function refusingGate(code: string, reason: () => string): WriteGate {
  return { decide: async () => ({ verdict: 'block', code, reason: reason() }) }
}

export interface TeamServiceDeps {
  dataDir: string
  vault: VaultHolder
  events: EventHub
  notify: Notify
  setGate(gate: WriteGate): void
  now?: () => number
  /** TeamGate timings (tests) */
  proposalTtlMs?: number
  leaseMs?: number
  /**
   * Re-sends a signed proposal's stored bytes when its lease expired without an outcome (a desk
   * crashed or lost its answer). Without it this desk never takes over (it still records expiries).
   */
  takeover?: TakeoverSender
  /** The slow timer for lease and proposal expiries (pushes trigger a pass too). Default 15 s; 0: no recovery passes at all. */
  recoverEveryMs?: number
}

export class TeamService {
  private config: TeamConfig | null
  private store: TeamStore | null = null
  private gate: TeamGate | null = null
  private sub: LogSubscription | null = null
  private link: TeamLinkState = 'off'
  private detail = 'no team store configured: this desk works alone'
  private opening: Promise<void> | null = null
  private retry: NodeJS.Timeout | null = null
  private retryMs = 500
  private dispatch: Dispatch | null = null
  private readonly calls = new AsyncLocalStorage<{ channel: string; args: unknown }>()
  private readonly now: () => number
  private snapshot = new Map<string, string>()
  private closed = false
  private recovering: Promise<void> | null = null
  private recoverAgain = false
  private recoverTimer: NodeJS.Timeout | null = null

  constructor(private readonly d: TeamServiceDeps) {
    this.now = d.now ?? Date.now
    this.config = readTeamConfig(d.dataDir)
    if (this.config) {
      this.link = 'connecting'
      this.detail = 'unlock the vault to open the team store'
      d.setGate(refusingGate(TeamErrors.unreachable, () => `team store not open (${this.detail})`))
    }
    d.events.subscribe((event, payload) => {
      if (event !== 'vault.status') return
      if ((payload as { unlocked: boolean }).unlocked) void this.open().catch(() => {})
      else void this.release('vault locked')
    })
  }

  /** The dispatcher, for `team.execute` (replay) and the recomputed previews. */
  setDispatch(dispatch: Dispatch): void {
    this.dispatch = dispatch
  }

  /** Runs one channel call with its name and arguments known to the decision step (what a proposal stores to replay it). */
  withCall<T>(channel: unknown, args: unknown, fn: () => Promise<T>): Promise<T> {
    if (typeof channel !== 'string' || !REPLAYABLE.has(channel)) return fn()
    return this.calls.run({ channel, args }, fn)
  }

  private replayOf(intent: WriteIntent): ProposalBody['replay'] | undefined {
    const call = this.calls.getStore()
    if (!call || typeof call.args !== 'object' || call.args === null) return undefined
    const args = JSON.parse(JSON.stringify(call.args)) as Record<string, unknown>
    for (const k of Object.keys(args)) if (SECRET_ARGS.has(k)) delete args[k]
    if (intent.cloid === '') return undefined
    // The fixed cloid goes with it: the replay is the same write, matched by cloid and action.
    args.cloid = intent.cloid
    return { channel: call.channel, args: args as NonNullable<ProposalBody['replay']>['args'] }
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  private operator(): TeamSigner {
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

  /** Opens the store with the vault's password and verifies the chain; on failure, retries with backoff (the push reconnects by itself once open). */
  open(): Promise<void> {
    if (!this.config || this.closed) return Promise.resolve()
    return (this.opening ??= this.doOpen().finally(() => (this.opening = null)))
  }

  private async doOpen(): Promise<void> {
    const config = this.config!
    if (this.store) return
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
      this.setLink(
        e instanceof DeskError && e.code === TeamErrors.unreachable ? 'unreachable' : 'unreachable',
        `team store unreachable: ${(e as Error).message}`,
      )
      this.scheduleRetry()
      throw e
    }
    if (this.closed || !this.d.vault.current?.isUnlocked) {
      await store.close()
      return
    }
    this.store = store
    this.retryMs = 500
    const gate = new TeamGate({
      store,
      operator: this.operator(),
      deskId: config.deskId,
      ...(config.genesisDigest ? { genesisDigest: config.genesisDigest as Hex } : {}),
      now: this.now,
      replayOf: (i) => this.replayOf(i),
      ...(this.d.proposalTtlMs ? { proposalTtlMs: this.d.proposalTtlMs } : {}),
      ...(this.d.leaseMs ? { leaseMs: this.d.leaseMs } : {}),
    })
    this.gate = gate
    this.d.setGate(gate)
    await this.refresh()
    this.sub = store.subscribe(
      {
        onEntries: () => void this.refresh().then(() => this.recoverSoon()),
        onStatus: (s, err) => {
          if (s === 'unreachable')
            this.setLink('unreachable', `team store unreachable${err ? `: ${err.message}` : ''}; team writes are refused until it returns`)
          else void this.refresh()
        },
      },
      gate.report().state.head?.seq ?? -1n,
    )
    await this.sub.ready.catch(() => {})
    // Expired leases and proposals: a pass now (a desk restarting after a crash), on every push, and on a slow timer.
    if (this.d.recoverEveryMs !== 0) {
      this.recoverTimer = setInterval(() => this.recoverSoon(), this.d.recoverEveryMs ?? 15_000)
      this.recoverTimer.unref?.()
      this.recoverSoon()
    }
  }

  /** Runs one recovery pass unless one is running (then one more after it): never two at once. */
  private recoverSoon(): void {
    if (!this.gate || this.closed || this.d.recoverEveryMs === 0) return
    if (this.recovering) {
      this.recoverAgain = true
      return
    }
    this.recovering = this.recover()
      .catch((e: unknown) => {
        // An unreachable store is reported by the link state; the next pass (push or timer) retries.
        if (!isTeamUnreachable(e)) console.warn('team takeover pass failed:', e instanceof Error ? e.message : String(e))
      })
      .finally(() => {
        this.recovering = null
        if (this.recoverAgain) {
          this.recoverAgain = false
          this.recoverSoon()
        }
      })
  }

  /**
   * Finishes what a crashed desk left: unsigned proposals past their expiry are recorded expired;
   * signed proposals with no final outcome whose execution lease expired are taken over (this desk
   * takes the lease, re-sends exactly the stored bytes, settles by cloid, and appends the outcome for
   * every desk). A lease another desk holds, or a proposal this desk cannot send, is left alone.
   */
  private async recover(): Promise<void> {
    const gate = this.gate
    if (!gate || this.link !== 'live') return
    // No genesis yet, or the store went away: refresh() reports it; nothing to recover now.
    const state = await gate.sync().catch(() => null)
    if (!state) return
    const me = this.facts().me
    if (!me || !state.roster?.members.has(me)) return
    await gate.expireDue().catch(() => 0) // another desk may record the same expiry first
    const takeover = this.d.takeover
    if (!takeover) return
    for (const p of await gate.unsettled()) {
      if (this.gate !== gate || this.closed) return
      if (await takeover.cannotSend(p)) continue
      let stored
      try {
        stored = await gate.claimExpired(p.id)
      } catch (e) {
        if (e instanceof DeskError && e.code === TeamErrors.leaseHeld) continue
        throw e
      }
      if (!stored) continue
      const fresh = gate.report().state.proposals.get(p.id) ?? p
      const outcome = await takeover.resend(fresh, stored)
      await gate.recordOutcome(p.id, outcome)
    }
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

  /** Re-verifies what the store holds now and pushes `state.team` (alerts for what changed). */
  private async refresh(): Promise<void> {
    const gate = this.gate
    if (!gate) return
    try {
      const state = await gate.sync()
      await this.pinGenesis(state)
      this.setLink('live', `verified ${gate.report().verified} entries`, false)
      this.proposalsChanged(state)
    } catch (e) {
      const err = e as DeskError
      if (err.code === TeamErrors.tampered) this.setLink('tampered', err.message)
      else if (err.code === TeamErrors.unreachable)
        this.setLink('unreachable', `team store unreachable: ${err.message}; team writes are refused until it returns`)
      else if (err.code === TeamErrors.refused && !gate.report().state.roster)
        this.setLink('live', 'connected; the team has no genesis yet (desk team init)')
      else this.setLink('unreachable', err.message)
    }
  }

  /** The first genesis this desk verified is the one it trusts from now on (a replaced chain is refused). */
  private async pinGenesis(state: TeamState): Promise<void> {
    if (!this.config || this.config.genesisDigest || !state.roster || !this.store) return
    const [genesis] = await this.store.readLog(0n, 1)
    if (!genesis) return
    this.config = { ...this.config, genesisDigest: genesis.digest }
    writeTeamConfig(this.d.dataDir, this.config)
  }

  private setLink(state: TeamLinkState, detail: string, push = true): void {
    const changed = state !== this.link || detail !== this.detail
    this.link = state
    this.detail = detail
    if (changed || push) void this.push(false)
  }

  private async push(proposalsChanged: boolean): Promise<void> {
    this.d.events.emit('state.team', { status: await this.status(), proposalsChanged })
  }

  /** Compares proposals with the last push: `state.team` with proposalsChanged, and the operator's alerts. */
  private proposalsChanged(state: TeamState): void {
    const roster = state.roster
    if (!roster) return void this.push(false)
    const facts = this.facts()
    const next = new Map<string, string>()
    let changed = false
    for (const p of state.proposals.values()) {
      const key = `${p.approvals.length}|${p.rejection ? 1 : 0}|${p.signed ? 1 : 0}|${p.outcomes.length}`
      next.set(p.id, key)
      const before = this.snapshot.get(p.id)
      if (before === key) continue
      changed = true
      if (this.snapshot.size === 0 && before === undefined && this.initialLoad) continue
      this.alert(p, before, facts, roster)
    }
    this.initialLoad = false
    this.snapshot = next
    void this.push(changed)
  }
  private initialLoad = true

  private alert(p: import('../../team').Proposal, before: string | undefined, f: ViewerFacts, roster: import('../../team').Roster): void {
    const title = p.title
    if (before === undefined && canApprove(p, roster, f))
      return this.d.notify(
        'info',
        'warning',
        'Needs your approval',
        `${title} (proposed by ${roster.members.get(p.initiator)?.name ?? p.initiator})`,
      )
    if (f.me !== p.initiator) return
    const last = p.outcomes.at(-1)
    if (last && last.state !== 'signed' && last.state !== 'sent')
      return this.d.notify('info', last.state === 'accepted' ? 'success' : 'warning', `Your proposal was executed: ${last.state}`, title)
    if (p.rejection) return this.d.notify('info', 'warning', 'Your proposal was rejected', `${title}: ${p.rejection.reason}`)
    if (p.approvals.length > 0 && !p.signed)
      return this.d.notify('info', 'success', 'Your proposal was approved', `${title} (${p.approvals.length} approval(s))`)
  }

  /** Vault locked or core closing: the store and the push are released; a configured desk keeps refusing writes. */
  async release(reason: string): Promise<void> {
    if (this.retry) clearTimeout(this.retry)
    this.retry = null
    if (this.recoverTimer) clearInterval(this.recoverTimer)
    this.recoverTimer = null
    const sub = this.sub
    const store = this.store
    this.sub = null
    this.store = null
    this.gate = null
    this.snapshot = new Map()
    this.initialLoad = true
    if (this.config) {
      this.d.setGate(refusingGate(TeamErrors.unreachable, () => `team store not open (${this.detail})`))
      this.setLink('connecting', `${reason}: unlock the vault to open the team store`)
    }
    await sub?.close().catch(() => {})
    // A takeover in flight finishes (or fails typed) before its store closes.
    await this.recovering?.catch(() => {})
    await store?.close().catch(() => {})
  }

  async close(): Promise<void> {
    this.closed = true
    await this.opening?.catch(() => {})
    await this.release('closing')
  }

  // ---- queries ------------------------------------------------------------------------------------

  private facts(): ViewerFacts {
    const vault = this.d.vault.current
    const me = vault?.identityAddress()?.toLowerCase() ?? null
    const keyed = new Set((vault?.listAccounts() ?? []).filter((a) => !a.watchOnly).map((a) => a.address.toLowerCase()))
    return { me, now: this.now(), canSignFor: (a) => keyed.has(a.toLowerCase()) }
  }

  async status(): Promise<TeamStatusView> {
    const me = this.d.vault.current?.identityAddress() ?? null
    const base: TeamStatusView = {
      configured: this.config !== null,
      state: this.link,
      detail: this.detail,
      broken: null,
      store: this.config ? storeLocation(this.config.connectionString) : null,
      teamId: null,
      teamName: null,
      me: { address: me, name: null, roles: [] as TeamRole[] },
      chain: { length: 0, headSeq: null, headDigest: null },
      policyVersion: null,
      needsMyApproval: 0,
      waitingOnOthers: 0,
    }
    const gate = this.gate
    if (!gate) return base
    // Fresh when the store answers (a push may still be on its way); the last verified state otherwise.
    if (this.link === 'live') await gate.sync().catch(() => undefined)
    const r = gate.report()
    const s = r.state
    const member = me ? s.roster?.members.get(me.toLowerCase()) : undefined
    const facts = this.facts()
    let needs = 0
    let waiting = 0
    if (s.roster) {
      for (const p of s.proposals.values()) {
        const v = proposalView(p, s.roster, facts)
        if (v.canApprove) needs++
        else if (v.mine && (v.status === 'open' || v.status === 'approved')) waiting++
      }
    }
    return {
      ...base,
      broken: r.broken ? { seq: r.broken.seq.toString(), reason: r.broken.reason } : null,
      teamId: s.roster?.teamId ?? null,
      teamName: s.roster?.teamName ?? null,
      me: { address: me, name: member?.name ?? null, roles: member ? ([...member.roles] as TeamRole[]) : [] },
      chain: { length: r.verified, headSeq: s.head?.seq.toString() ?? null, headDigest: s.head?.digest ?? null },
      policyVersion: s.policy?.version ?? null,
      needsMyApproval: needs,
      waitingOnOthers: waiting,
    }
  }

  /** The gate, synced now: TeamStoreUnreachable / TeamChainTampered typed as they come. */
  private async live(): Promise<{ gate: TeamGate; state: TeamState }> {
    if (!this.config) throw notConfigured()
    if (!this.gate) {
      await this.open().catch(() => {})
      if (!this.gate) {
        if (!this.d.vault.current?.isUnlocked) throw new DeskError('VaultLocked', 'the vault is locked; unlock it to reach the team store')
        throw new DeskError(TeamErrors.unreachable, `team store unreachable (${this.detail}); team writes are refused until it returns`)
      }
    }
    try {
      const state = await this.gate.sync()
      return { gate: this.gate, state }
    } catch (e) {
      await this.refresh()
      if (e instanceof DeskError && e.code === TeamErrors.refused && !this.gate.report().state.roster)
        return { gate: this.gate, state: this.gate.report().state }
      throw e
    }
  }

  private async roster() {
    const { gate, state } = await this.live()
    if (!state.roster) throw new DeskError('TeamNoGenesis', 'the team has no genesis yet: the first admin runs desk team init')
    return { gate, state, roster: state.roster }
  }

  async members(): Promise<TeamMembersView> {
    const { roster } = await this.roster()
    return membersView(roster, this.facts().me)
  }

  async policy(): Promise<TeamPolicyView> {
    const { state } = await this.roster()
    return {
      version: state.policy?.version ?? null,
      rules: (state.policy?.rules ?? []).map(ruleView),
      history: state.policyHistory.map(policyVersionView),
    }
  }

  async proposals(f: {
    view: 'needsMe' | 'waiting' | 'history'
    kind?: string | undefined
    account?: string | undefined
  }): Promise<TeamProposalView[]> {
    const { gate, roster } = await this.roster()
    const facts = this.facts()
    const all = (await gate.proposals()).map(({ proposal }) => proposalView(proposal, roster, facts))
    return all
      .filter((p) => {
        if (f.kind && p.kind !== f.kind) return false
        if (f.account && p.account !== f.account.toLowerCase()) return false
        const active = p.status === 'open' || p.status === 'approved' || (p.status === 'signed' && p.outcome === null)
        if (f.view === 'needsMe') return p.canApprove
        if (f.view === 'waiting') return active && !p.canApprove
        return !active
      })
      .sort((a, b) => b.at - a.at)
  }

  async proposal(id: string): Promise<TeamProposalDetail> {
    const { state, roster } = await this.roster()
    const p = state.proposals.get(id)
    if (!p) throw new DeskError('TeamProposalNotFound', `no verified proposal ${id.slice(0, 10)}…`)
    const view = proposalView(p, roster, this.facts())
    let recomputed: TeamProposalDetail['recomputed'] = null
    let recomputeError: string | null = null
    const previewChannel = p.replay ? PREVIEW_OF[p.replay.channel] : undefined
    if (!p.replay || !previewChannel) recomputeError = 'this write has no live preview on this desk'
    else if (!this.dispatch) recomputeError = 'previews are not available here'
    else {
      const r = await this.dispatch(previewChannel, p.replay.args, { host: 'test' })
      if (!r.ok) recomputeError = `${r.error.code}: ${r.error.message}`
      else recomputed = { ...previewLines(r.value), computedAt: this.now(), usd: null }
    }
    return {
      ...view,
      initiatorPreview: { title: p.title, lines: [...p.preview] },
      recomputed,
      recomputeError,
      action: p.action as Record<string, unknown>,
      channel: p.replay?.channel ?? null,
      outcomes: p.outcomes.map((o) => ({
        address: o.by as Address,
        state: o.state,
        finalStatus: o.finalStatus,
        code: o.code,
        at: o.at,
        ...(o.evidence !== undefined ? { evidence: o.evidence } : {}),
      })),
    }
  }

  async verify(): Promise<TeamVerifyView> {
    const { gate } = await this.live()
    void gate
    const rows = await this.store!.readLog(0n)
    const r = await verifyStore(this.store!, this.config?.genesisDigest ? { genesisDigest: this.config.genesisDigest as Hex } : {})
    return {
      ok: r.ok,
      entries: rows.length,
      verified: r.verified,
      broken: r.broken ? { seq: r.broken.seq.toString(), reason: r.broken.reason } : null,
      headSeq: r.state.head?.seq.toString() ?? null,
      headDigest: r.state.head?.digest ?? null,
    }
  }

  async exportCsv(): Promise<ExportFile> {
    await this.live()
    const content = await exportCsv(this.store!, this.config?.genesisDigest ? { genesisDigest: this.config.genesisDigest as Hex } : {})
    void logToCsv
    return { filename: `team-log-${new Date(this.now()).toISOString().slice(0, 10)}.csv`, mime: 'text/csv', content }
  }

  // ---- intents --------------------------------------------------------------------------------

  private async checkPassphrase(passphrase: string): Promise<void> {
    const vault = this.d.vault.requireUnlocked()
    if (!(await vault.verifyPassphrase(passphrase))) throw new DeskError('PassphraseIncorrect', 'wrong vault passphrase; nothing changed')
  }

  async configure(connectionString: string, password: string, passphrase: string): Promise<TeamStatusView> {
    await this.checkPassphrase(passphrase)
    const cs = withoutPassword(connectionString)
    // Checked before anything is kept: the store must open with this password.
    const probe = await TeamStore.open({ connectionString: cs, password })
    await probe.close()
    await this.d.vault.requireUnlocked().setTeamSecret('teamStorePassword', password)
    await this.release('reconfigured')
    this.config = { connectionString: cs, deskId: this.config?.deskId ?? newDeskId() }
    writeTeamConfig(this.d.dataDir, this.config)
    await this.open()
    return this.status()
  }

  async join(passphrase: string): Promise<{ address: Address }> {
    await this.checkPassphrase(passphrase)
    const vault = this.d.vault.requireUnlocked()
    const address = vault.identityAddress() ?? (await vault.createIdentityKey())
    return { address: address.toLowerCase() as Address }
  }

  async init(teamName: string, name: string, passphrase: string): Promise<TeamStatusView> {
    const { address } = await this.join(passphrase)
    const { gate, state } = await this.live()
    if (state.roster || state.head)
      throw new DeskError(
        'TeamAlreadyInitialised',
        `the team store already holds a team (${state.roster?.teamName ?? 'unverified'}); join it instead`,
      )
    const { teamId, entry } = genesisEntry({ teamName, adminQuorum: 1, members: [{ address, name, roles: ['admin', 'trader'] }] })
    const signed = await signedEntry(teamId, entry, [this.operator()])
    await this.store!.append(signed)
    this.config = { ...this.config!, genesisDigest: signed.digest }
    writeTeamConfig(this.d.dataDir, this.config)
    void gate
    await this.refresh()
    return this.status()
  }

  /** Appends one admin-signed roster/policy entry on the freshest verified state (retried on a seq conflict). */
  private async appendAdmin(build: (state: TeamState) => import('../../team').UnsignedEntry): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const { gate, roster } = await this.roster()
      const state = gate.report().state
      if (roster.adminQuorum > 1)
        throw new DeskError(
          'TeamQuorumSigning',
          `roster and policy changes need ${roster.adminQuorum} admin signatures; collecting them across desks is not built yet`,
        )
      let entry
      try {
        entry = build(state)
      } catch (e) {
        if (e instanceof DeskError && e.code === TeamErrors.badInput) throw new DeskError(TeamErrors.refused, e.message)
        throw e
      }
      const signed = await signedEntry(roster.teamId, entry, [this.operator()])
      try {
        await this.store!.append(signed)
      } catch (e) {
        if (e instanceof DeskError && e.code === TeamErrors.conflict && attempt < 5) continue
        throw e
      }
      await this.refresh()
      const after = gate.report()
      if (after.broken)
        throw new DeskError(TeamErrors.tampered, `the team chain does not verify at entry ${after.broken.seq}: ${after.broken.reason}`)
      return
    }
  }

  private async requireAdmin(): Promise<void> {
    const { roster } = await this.roster()
    const me = this.facts().me
    if (!me || !roster.members.get(me)?.roles.includes('admin'))
      throw new DeskError(TeamErrors.refused, 'only a team admin may change the roster or the policy')
  }

  async changeRoster(changes: RosterChange[]): Promise<TeamMembersView> {
    await this.requireAdmin()
    const lc = changes.map((c) => ('address' in c ? { ...c, address: c.address.toLowerCase() } : c))
    await this.appendAdmin((s) => rosterEntry(s, lc))
    return this.members()
  }

  async setPolicy(rules: TeamRuleInput[]): Promise<TeamPolicyView> {
    await this.requireAdmin()
    const stored = rules.map((r) => ({
      ...r,
      ...(r.accounts ? { accounts: r.accounts.map((a) => a.toLowerCase()) } : {}),
      ...(r.destinations ? { destinations: r.destinations.map((a) => a.toLowerCase()) } : {}),
    }))
    await this.appendAdmin((s) => policyEntry(s, stored))
    return this.policy()
  }

  private async viewOf(id: string): Promise<TeamProposalView> {
    const { state, roster } = await this.roster()
    const p = state.proposals.get(id)
    if (!p) throw new DeskError('TeamProposalNotFound', `no verified proposal ${id.slice(0, 10)}…`)
    return proposalView(p, roster, this.facts())
  }

  async approve(id: string): Promise<TeamProposalView> {
    const { gate } = await this.roster()
    await gate.approve(id)
    await this.refresh()
    return this.viewOf(id)
  }

  async reject(id: string, reason: string): Promise<TeamProposalView> {
    const { gate } = await this.roster()
    await gate.reject(id, reason)
    await this.refresh()
    return this.viewOf(id)
  }

  /**
   * Runs an approved proposal on this desk: the same write replayed through the one pipeline (same
   * channel, same arguments, same cloid), so the gate matches it by cloid and action, checks the
   * quorum itself, stores the signed bytes under the lease and sends them once.
   */
  async execute(id: string, ctx: Parameters<Dispatch>[2]): Promise<WriteOutcome> {
    const { state } = await this.roster()
    const p = state.proposals.get(id)
    if (!p) throw new DeskError('TeamProposalNotFound', `no verified proposal ${id.slice(0, 10)}…`)
    if (!p.replay)
      throw new DeskError('TeamNotReplayable', `proposal ${id.slice(0, 10)}… carries no replayable write; run it again from its screen`)
    if (!this.dispatch) throw new DeskError('Internal', 'team execution has no dispatcher')
    const r = await this.withCall(p.replay.channel, p.replay.args, () => this.dispatch!(p.replay!.channel, p.replay!.args, ctx))
    await this.refresh()
    if (!r.ok) throw new DeskError(r.error.code, r.error.message, r.error.details)
    return r.value as WriteOutcome
  }
}

/** A preview (PreviewView or OrderCheckView) as lines to set beside the initiator's. */
function previewLines(v: unknown): { title: string; lines: string[] } {
  const o = (v ?? {}) as { title?: unknown; summary?: unknown; effects?: unknown; warnings?: unknown; problems?: unknown }
  const lines: string[] = []
  if (Array.isArray(o.summary)) lines.push(...o.summary.map(String))
  if (Array.isArray(o.effects))
    for (const e of o.effects as { label?: string; account?: string; assetSymbol?: string; before?: string; after?: string }[])
      lines.push(`${e.label || e.account}: ${e.before} → ${e.after} ${e.assetSymbol ?? ''}`.trim())
  if (Array.isArray(o.problems)) lines.push(...o.problems.map((x) => `problem: ${String(x)}`))
  if (Array.isArray(o.warnings)) lines.push(...o.warnings.map((x) => `warning: ${String(x)}`))
  return { title: typeof o.title === 'string' ? o.title : 'recomputed now', lines }
}
