/**
 * Guardrail settings changes under the team (address book, limits, resume; never the halt): the
 * team policy's verdict on a change of this desk, and the initiating desk applying each approved
 * change on its own, exactly once (a signed one without outcome, left by a restart, is settled
 * first and never applied twice).
 */
import { DeskError } from '../../errors/desk-error'
import { TeamErrors, isSettingsKind, proposalStatus, settingsChangeOf, type Proposal, type SettingsChange } from '../../team'
import type { ProposalOutcome } from './team-gate'
import type { TeamLink } from './team-link'

/** Where a settings change applies and what the initiator saw (the queue's preview lines). */
export interface SettingsWhere {
  network: string
  exchange: string
  preview: string[]
}
export type SettingsVerdict = { verdict: 'allow' } | { verdict: 'propose'; proposalId: string; needs: string; expiresAt: number }
/** Applies an approved settings change to this desk's guardrails (features/policy), on the network the proposal names. */
export interface SettingsApplier {
  apply(change: SettingsChange, network: string): Promise<void>
  /** Whether this desk's settings already hold the change (after a restart between recording and applying). */
  inEffect(change: SettingsChange, network: string): Promise<boolean>
}

function changeIn(p: Proposal): SettingsChange {
  const change = settingsChangeOf(p.action)
  if (!change) throw new DeskError(TeamErrors.refused, `proposal ${p.id.slice(0, 10)}… carries no settings change`)
  return change
}

export class TeamSettings {
  private applier: SettingsApplier | null = null
  /** A pass applying approved settings changes is running / another push came meanwhile. */
  private pass: Promise<void> | null = null
  private again = false

  constructor(
    private readonly link: TeamLink,
    private readonly now: () => number,
  ) {}

  /** What applies an approved settings change here (features/policy); without it none is applied. */
  setApplier(apply: SettingsApplier): void {
    this.applier = apply
  }

  /**
   * The team policy's verdict on a guardrail settings change of this desk (address book, limits,
   * resume; never the halt). No team configured: allow, exactly as a single desk works today. A
   * configured desk whose store is not open refuses (TeamStoreUnreachable), as it does writes.
   * `beforePropose` runs (the passphrase check) only when a proposal is about to be made.
   */
  async decide(change: SettingsChange, where: SettingsWhere, beforePropose: () => Promise<void>): Promise<SettingsVerdict> {
    if (!this.link.config) return { verdict: 'allow' }
    const { gate } = await this.link.roster()
    const v = await gate.decideSettings(change, where, beforePropose)
    if (v.verdict === 'propose') await this.link.refresh()
    return v
  }

  /**
   * Applies an approved settings proposal on this desk (the one it names) exactly once: the gate
   * re-verifies the quorum against the verified roster and policy, stores the `signed` entry under
   * the lease, then the change is applied and its outcome recorded for every desk.
   */
  async apply(id: string): Promise<ProposalOutcome> {
    const apply = this.applier
    if (!apply) throw new DeskError('Internal', 'team settings changes have no applier on this desk')
    const { gate } = await this.link.roster()
    const out = await gate.applySettings(id, (p) => apply.apply(changeIn(p), p.network))
    await this.link.refresh()
    return out
  }

  /** A settings change this desk recorded but did not settle (it stopped in between): settled now, never applied twice. */
  private async finish(id: string): Promise<void> {
    const apply = this.applier
    if (!apply) return
    const { gate } = await this.link.roster()
    const out = await gate.finishSettings(
      id,
      (p) => apply.inEffect(changeIn(p), p.network),
      (p) => apply.apply(changeIn(p), p.network),
    )
    if (out) await this.link.refresh()
  }

  /** Settings proposals of this desk that were signed and never settled (this desk stopped in between). */
  private unfinished(): Proposal[] {
    const gate = this.link.gate
    const me = this.link.facts().me
    if (!gate || !me) return []
    return [...gate.report().state.proposals.values()].filter(
      (p) => isSettingsKind(p.kind) && p.action.desk === gate.desk && p.signed?.by === me && p.outcomes.length === 0,
    )
  }

  /** Approved settings proposals this desk made for itself and has not applied yet. */
  private due(): Proposal[] {
    const gate = this.link.gate
    const me = this.link.facts().me
    if (!gate || !me) return []
    const state = gate.report().state
    if (!state.roster) return []
    const now = this.now()
    return [...state.proposals.values()].filter(
      (p) =>
        isSettingsKind(p.kind) &&
        p.initiator === me &&
        p.action.desk === gate.desk &&
        !p.signed &&
        proposalStatus(p, state.roster!, now) === 'approved',
    )
  }

  /** Once its quorum is verified, the initiating desk applies its settings change on its own (one pass at a time). */
  applyDue(): void {
    if (!this.applier) return
    if (this.pass) {
      this.again = true
      return
    }
    this.pass = (async () => {
      do {
        this.again = false
        // Only this pass applies settings in this process: a signed one without outcome seen here is from before a restart.
        for (const p of this.unfinished())
          await this.finish(p.id).catch((e: unknown) =>
            console.warn('team settings change not settled:', e instanceof Error ? e.message : String(e)),
          )
        for (const p of this.due()) {
          await this.apply(p.id).catch((e: unknown) => {
            // Another call of this desk got there first (TeamAlreadySigned), or the store went away: the next push retries.
            if (!(e instanceof DeskError && e.code === TeamErrors.alreadySigned))
              console.warn('team settings change not applied:', e instanceof Error ? e.message : String(e))
          })
        }
      } while (this.again)
    })().finally(() => (this.pass = null))
  }
}
