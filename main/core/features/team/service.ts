/**
 * Team mode in main, composed: the link to the team store (team-link.ts), the takeover passes
 * (recovery.ts), the operator's alerts (proposal-alerts.ts), the views (queries.ts), the admin's
 * entries (admin.ts) and the replay of approved writes (replay.ts). It pushes `state.team` when the
 * link or the proposals change. A desk with no team configuration keeps ALLOW_ALL exactly as before.
 */
import type {
  TeamChangeView,
  TeamMembersView,
  TeamPolicyView,
  TeamProposalDetail,
  TeamProposalView,
  TeamStatusView,
  TeamVerifyView,
  TeamCustodySplitView,
  TeamCustodyView,
  ExportFile,
  Address,
  SubmissionView,
  WriteOutcome,
} from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { EventHub } from '../../ipc/events'
import type { Notify } from '../../ipc/notify'
import type { SessionSource } from '../../session'
import { TeamErrors, countingApprovals, isSettingsKind, proposalStatus, type RosterChange, type SettingsChange } from '../../team'
import type { WriteGate } from '../../writes/decision'
import type { VaultHolder } from '../vault'
import { TeamAdmin, type TeamRuleInput } from './admin'
import { ChangeAlerts } from './change-alerts'
import { ProposalAlerts, notifySink, type TeamAlertSink } from './proposal-alerts'
import { TeamQueries, type Dispatch } from './queries'
import { TeamRecovery } from './recovery'
import { ANSWERS_A_VIEW, CallContext } from './replay'
import { sessionExecutedCheck, type ExecutedCheck } from './executed-check'
import { TeamCustody } from './custody'
import { teamCustodyGuard } from './vault-custody-guard'
import type { TakeoverSender } from './takeover'
import type { ProposalOutcome } from './team-gate'
import { TeamLink } from './team-link'
import { TeamSettings, type SettingsApplier, type SettingsVerdict, type SettingsWhere } from './settings-runner'

export type { TeamRuleInput } from './admin'
export type { SettingsApplier, SettingsVerdict, SettingsWhere } from './settings-runner'

export interface TeamServiceDeps {
  dataDir: string
  vault: VaultHolder
  events: EventHub
  notify: Notify
  /** The session: the units of the amounts proposals move, on the list and the detail. */
  sessions?: SessionSource
  /** The desk's alert log (features/alerts): team alerts in the notifications drawer with acknowledge. Without it: plain notify lines. */
  alerts?: TeamAlertSink
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
  /** How long a team-held account's signature waits for the holders' releases (tests); default 30 s. */
  releaseWaitMs?: number
  /** Asks the exchange whether an approved proposal's cloid already executed; default: the session's /info and earn reads. */
  executed?: ExecutedCheck
  /** The slow timer for lease and proposal expiries (pushes trigger a pass too). Default 15 s; 0: no recovery passes at all. */
  recoverEveryMs?: number
}

export class TeamService {
  private readonly link: TeamLink
  private readonly custody: TeamCustody
  private readonly calls = new CallContext()
  private readonly recovery: TeamRecovery
  private readonly alerts: ProposalAlerts
  private readonly queries: TeamQueries
  private readonly admin: TeamAdmin
  private readonly changeAlerts: ChangeAlerts
  /** A pass over the waiting admin changes is running / another push came meanwhile. */
  private changesPass: Promise<void> | null = null
  private changesAgain = false
  private dispatch: Dispatch | null = null
  private readonly settings: TeamSettings

  constructor(private readonly d: TeamServiceDeps) {
    const now = d.now ?? Date.now
    this.link = new TeamLink({
      dataDir: d.dataDir,
      vault: d.vault,
      events: d.events,
      setGate: d.setGate,
      now,
      proposalTtlMs: d.proposalTtlMs,
      leaseMs: d.leaseMs,
      replayOf: (i) => this.calls.replayOf(i),
      executed: d.executed ?? (d.sessions ? sessionExecutedCheck(d.sessions) : undefined),
      custodyHeld: (account) => this.custody.holds(account),
    })
    d.vault.setCustodyGuard(teamCustodyGuard({ link: this.link, vault: d.vault }))
    this.recovery = new TeamRecovery({ link: this.link, takeover: d.takeover, everyMs: d.recoverEveryMs })
    this.alerts = new ProposalAlerts(d.alerts ?? notifySink(d.notify))
    this.queries = new TeamQueries({ link: this.link, vault: d.vault, sessions: d.sessions, now, dispatch: () => this.dispatch })
    this.admin = new TeamAdmin({ link: this.link, vault: d.vault })
    this.settings = new TeamSettings(this.link, now)
    this.changeAlerts = new ChangeAlerts(d.alerts ?? notifySink(d.notify))
    this.custody = new TeamCustody({
      link: this.link,
      vault: d.vault,
      admin: this.admin,
      now,
      ...(d.releaseWaitMs ? { releaseWaitMs: d.releaseWaitMs } : {}),
      coSign: () => this.link.config?.coSign === true,
    })
    // The vault asks team custody how a team-held owner key signs (the vault may be created or reopened later).
    const install = () => d.vault.current?.setCustody(this.custody)
    install()
    d.events.subscribe((event) => {
      if (event === 'vault.status') install()
    })
    this.link.listen({
      verified: (state) => {
        const roster = state.roster
        void this.push(roster ? this.alerts.changed(state, this.link.facts()) : false)
        if (roster) this.settings.applyDue()
        if (state.custody.size > 0) void this.custody.dropHeldKeys().catch(() => {})
      },
      changed: () => void this.push(false),
      custody: (what) => this.custody.pushed(what),
      opened: () => {
        void this.custody.publish().catch(() => {})
        this.recovery.start()
      },
      entries: () => this.recovery.soon(),
      changes: () => this.changesPushed(),
      releasing: () => {
        this.alerts.reset()
        return this.recovery.stop()
      },
    })
  }

  /** The dispatcher, for `team.execute` (replay) and the recomputed previews. */
  setDispatch(dispatch: Dispatch): void {
    this.dispatch = dispatch
  }

  /** What applies an approved settings change here (features/policy); without it none is applied. */
  setSettingsApplier(apply: SettingsApplier): void {
    this.settings.setApplier(apply)
  }

  /** The team policy's verdict on a guardrail settings change of this desk (settings-runner.ts). */
  decideSettings(change: SettingsChange, where: SettingsWhere, beforePropose: () => Promise<void>): Promise<SettingsVerdict> {
    return this.settings.decide(change, where, beforePropose)
  }

  /** Applies an approved settings proposal on this desk exactly once (settings-runner.ts). */
  applySettings(id: string): Promise<ProposalOutcome> {
    return this.settings.apply(id)
  }

  /** Runs one channel call with its name and arguments known to the decision step (what a proposal stores to replay it). */
  withCall<T>(channel: unknown, args: unknown, fn: () => Promise<T>): Promise<T> {
    return this.calls.withCall(channel, args, fn)
  }

  private async push(proposalsChanged: boolean, changesChanged = false): Promise<void> {
    this.d.events.emit('state.team', { status: await this.status(), proposalsChanged, changesChanged })
  }

  /**
   * The waiting admin changes moved (pushed by the store): re-read and re-verify them, alert this
   * admin about each one they may sign, and tell the screens. One pass at a time; a push during a
   * pass runs one more.
   */
  private changesPushed(): void {
    if (this.changesPass) {
      this.changesAgain = true
      return
    }
    this.changesPass = (async () => {
      do {
        this.changesAgain = false
        // No genesis yet, or the store went away: nothing to sign now (the next push re-reads).
        const list = await this.admin.changes().catch(() => [])
        this.changeAlerts.seen(list)
        await this.push(false, true).catch(() => {})
      } while (this.changesAgain)
    })().finally(() => (this.changesPass = null))
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  /** Opens the store with the vault's password and verifies the chain (retried with backoff on failure). */
  open(): Promise<void> {
    return this.link.open()
  }

  /** Vault locked or core closing: the store and the push are released; a configured desk keeps refusing writes. */
  release(reason: string): Promise<void> {
    return this.link.release(reason)
  }

  close(): Promise<void> {
    return this.link.close()
  }

  // ---- queries ------------------------------------------------------------------------------------

  status(): Promise<TeamStatusView> {
    return this.queries.status()
  }
  members(): Promise<TeamMembersView> {
    return this.queries.members()
  }
  policy(): Promise<TeamPolicyView> {
    return this.queries.policy()
  }
  proposals(f: {
    view: 'needsMe' | 'waiting' | 'history'
    kind?: string | undefined
    account?: string | undefined
  }): Promise<TeamProposalView[]> {
    return this.queries.proposals(f)
  }
  proposal(id: string): Promise<TeamProposalDetail> {
    return this.queries.proposal(id)
  }
  verify(): Promise<TeamVerifyView> {
    return this.queries.verify()
  }
  exportCsv(): Promise<ExportFile> {
    return this.queries.exportCsv()
  }

  // ---- intents --------------------------------------------------------------------------------

  async configure(connectionString: string, password: string, passphrase: string): Promise<TeamStatusView> {
    await this.admin.configure(connectionString, password, passphrase)
    return this.status()
  }

  async join(passphrase: string): Promise<{ address: Address }> {
    const r = await this.admin.join(passphrase)
    // Members' identity public keys are published so the team can seal custody shares to them.
    await this.custody.publish().catch(() => {})
    return r
  }

  async custodySplit(a: {
    account: string
    holders: string[]
    threshold: number
    recoveryFile: string | null
  }): Promise<TeamCustodySplitView> {
    const r = await this.custody.split(a)
    await this.link.refresh()
    return {
      account: r.record.account as Address,
      version: r.record.version,
      threshold: r.record.threshold,
      holders: r.record.holders.map((h) => h.address as Address),
      recoveryChecksum: r.recoveryChecksum,
      applied: r.applied,
    }
  }

  async custodyResplit(a: {
    account: string
    holders: string[]
    threshold: number
    recoveryFile: string | null
    recoveryShareFile: string | null
  }): Promise<TeamCustodySplitView> {
    const r = await this.custody.resplit(a)
    await this.link.refresh()
    return {
      account: r.record.account as Address,
      version: r.record.version,
      threshold: r.record.threshold,
      holders: r.record.holders.map((h) => h.address as Address),
      recoveryChecksum: r.recoveryChecksum,
      applied: r.applied,
    }
  }

  custodyStatus(): Promise<TeamCustodyView[]> {
    return this.custody.status()
  }

  /** This member's co-signer rule (off by default), kept in this desk's team configuration. */
  async custodyCoSign(on: boolean): Promise<{ coSign: boolean }> {
    const cfg = this.link.config
    if (!cfg) throw new DeskError('TeamNotConfigured', 'team mode is not configured on this desk (desk team configure)')
    this.link.setConfig({ ...cfg, ...(on ? { coSign: true } : {}), ...(on ? {} : { coSign: undefined }) })
    return { coSign: on }
  }

  async leave(passphrase: string): Promise<TeamStatusView> {
    await this.admin.leave(passphrase)
    return this.status()
  }

  async init(teamName: string, name: string, passphrase: string): Promise<TeamStatusView> {
    await this.admin.init(teamName, name, passphrase)
    await this.custody.publish().catch(() => {})
    return this.status()
  }

  async changeRoster(changes: RosterChange[]): Promise<TeamMembersView> {
    await this.admin.changeRoster(changes)
    return this.members()
  }

  async setQuorum(adminQuorum: number): Promise<TeamMembersView> {
    await this.admin.setQuorum(adminQuorum)
    return this.members()
  }

  changes(): Promise<TeamChangeView[]> {
    return this.admin.changes()
  }

  signChange(id: string): Promise<{ applied: boolean; signatures: number; quorum: number }> {
    return this.admin.signChange(id)
  }

  async setPolicy(rules: TeamRuleInput[], groups?: Record<string, string[]>, names?: Record<string, string>): Promise<TeamPolicyView> {
    await this.admin.setPolicy(rules, groups, names)
    return this.policy()
  }

  /**
   * Approving is a deliberate act: the operator confirms a summary naming the amount, the account,
   * the destination and the value as this desk reads them (and the fields that differ), with the
   * vault passphrase when the re-entry window passed, as for an owner-key write. Nothing is signed
   * into the chain before that.
   */
  async approve(id: string): Promise<TeamProposalView> {
    const { gate } = await this.link.roster()
    const detail = await this.queries.proposal(id)
    if (detail.status !== 'open') {
      await gate.approve(id) // not open: the chain's own refusal, typed (an approval entry needs an open proposal)
      return this.queries.view(id)
    }
    const f = (k: string) => detail.review.find((x) => x.key === k)
    const shown = (k: string) => {
      const x = f(k)
      return x ? (x.mine ?? `${x.initiator ?? 'unknown'} (this desk cannot read it)`) : null
    }
    const differing = detail.review.filter((x) => x.state === 'differs').map((x) => x.label)
    const summary = [
      detail.title,
      ...(shown('amount') ? [`amount: ${shown('amount')}`] : []),
      `account: ${detail.account}`,
      ...(shown('destination') ? [`destination: ${shown('destination')}`] : []),
      ...(shown('usd') ? [`value: ${shown('usd')}`] : []),
      `rule ${detail.rule}, proposed by ${detail.initiator.name ?? detail.initiator.address}`,
      differing.length > 0
        ? `DIFFERS from what this desk reads: ${differing.join(', ')}. Approve only if you know why.`
        : 'Every field this desk can read matches the proposal.',
    ]
    await this.d.vault
      .requireUnlocked()
      .confirmAction({ action: 'teamApproval', title: `Approve proposal: ${detail.title}`, summary, details: { action: detail.action } })
    await gate.approve(id)
    await this.link.refresh()
    return this.queries.view(id)
  }

  async reject(id: string, reason: string): Promise<TeamProposalView> {
    const { gate } = await this.link.roster()
    await gate.reject(id, reason)
    await this.link.refresh()
    return this.queries.view(id)
  }

  /**
   * Runs an approved proposal on this desk: the same write replayed through the one pipeline (same
   * channel, same arguments, same cloid), so the gate matches it by cloid and action, checks the
   * quorum itself, stores the signed bytes under the lease and sends them once.
   */
  async execute(id: string, ctx: Parameters<Dispatch>[2]): Promise<WriteOutcome> {
    const { gate, state, roster } = await this.link.roster()
    const p = state.proposals.get(id)
    if (!p) throw new DeskError('TeamProposalNotFound', `no verified proposal ${id.slice(0, 10)}…`)
    if (isSettingsKind(p.kind))
      throw new DeskError(
        'TeamSettingsApplyOnTheirOwn',
        `proposal ${id.slice(0, 10)}… is a settings change: desk ${String(p.action.desk)} applies it on its own once its quorum is verified`,
      )
    // Not (or no longer) approved: say so, typed, rather than answer with the write proposed again.
    if (proposalStatus(p, roster, (this.d.now ?? Date.now)()) === 'open')
      throw new DeskError(
        TeamErrors.refused,
        `proposal ${id.slice(0, 10)}… is not approved: ${countingApprovals(p, roster).length} of ${p.needs.count} approval(s) from ` +
          `${p.needs.roles.join(' or ')} count in the verified roster; nothing was signed or sent`,
      )
    // The rows it rests on, read again: an edit below the head since this desk verified them refuses it here (and again before signing).
    await gate.recheck(p).catch(async (e: unknown) => {
      await this.link.refresh() // the desk now shows the chain as tampered at that entry
      throw e
    })
    const replay = p.replay
    if (!replay)
      throw new DeskError('TeamNotReplayable', `proposal ${id.slice(0, 10)}… carries no replayable write; run it again from its screen`)
    const dispatch = this.dispatch
    if (!dispatch) throw new DeskError('Internal', 'team execution has no dispatcher')
    const r = await this.withCall(replay.channel, replay.args, () => dispatch(replay.channel, replay.args, ctx))
    await this.link.refresh()
    if (!r.ok) throw new DeskError(r.error.code, r.error.message, r.error.details)
    if (!ANSWERS_A_VIEW.has(replay.channel)) return r.value as WriteOutcome
    // An earn or agents channel answers with its own view; the write's outcome is the journal entry that names this proposal.
    const q = await dispatch('journal.query', { account: p.account, q: p.id, limit: 50 }, ctx)
    const entry = q.ok
      ? (q.value as SubmissionView[]).filter((x) => x.proposalId === p.id).sort((x, y) => Number(y.id) - Number(x.id))[0]
      : undefined
    if (!entry) throw new DeskError('Internal', `proposal ${id.slice(0, 10)}… ran, but no journal entry names it`)
    return { submission: entry, proposalId: p.id, leaves: [] }
  }
}
