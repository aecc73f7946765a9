/**
 * The operator's team alerts, from what changed between two verified states: a proposal that needs
 * my approval, and my own proposal approved, rejected or executed. The first state after the store
 * opens is the baseline (no alert for what was already there).
 */
import type { Notify } from '../../ipc/notify'
import type { Proposal, Roster, TeamState } from '../../team'
import { canApprove, type ViewerFacts } from './views'

export class ProposalAlerts {
  private snapshot = new Map<string, string>()
  private initialLoad = true

  constructor(private readonly notify: Notify) {}

  /** The store was released: the next verified state is a new baseline. */
  reset(): void {
    this.snapshot = new Map()
    this.initialLoad = true
  }

  /** Compares proposals with the last verified state, raises the operator's alerts; true when any proposal changed. */
  changed(state: TeamState, facts: ViewerFacts): boolean {
    const roster = state.roster
    if (!roster) return false
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
    return changed
  }

  private alert(p: Proposal, before: string | undefined, f: ViewerFacts, roster: Roster): void {
    const title = p.title
    if (before === undefined && canApprove(p, roster, f))
      return this.notify(
        'info',
        'warning',
        'Needs your approval',
        `${title} (proposed by ${roster.members.get(p.initiator)?.name ?? p.initiator})`,
      )
    if (f.me !== p.initiator) return
    const last = p.outcomes.at(-1)
    if (last && last.state !== 'signed' && last.state !== 'sent')
      return this.notify('info', last.state === 'accepted' ? 'success' : 'warning', `Your proposal was executed: ${last.state}`, title)
    if (p.rejection) return this.notify('info', 'warning', 'Your proposal was rejected', `${title}: ${p.rejection.reason}`)
    if (p.approvals.length > 0 && !p.signed)
      return this.notify('info', 'success', 'Your proposal was approved', `${title} (${p.approvals.length} approval(s))`)
  }
}
