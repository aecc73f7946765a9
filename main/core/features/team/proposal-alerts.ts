/**
 * The operator's team alerts, from what changed between two verified states: a proposal that needs
 * my approval, and my own proposal approved (its quorum met), rejected or executed. They go to the
 * desk's alert log (features/alerts: the notifications drawer, acknowledge, quiet hours, the kind's
 * on/off switch), each once per key across restarts. A proposal that waits for my approval when the
 * store opens alerts too (once ever); my proposals' older news does not.
 */
import { formatWhen } from '../../../contract/format'
import type { Notify } from '../../ipc/notify'
import type { Proposal, Roster, TeamState } from '../../team'
import { isRecordedWrite, quorumMet } from '../../team'
import { canApprove, type ViewerFacts } from './views'

/** Where team alerts go: the AlertService (`raise`), or the plain notify line where there is none. */
export interface TeamAlertSink {
  raise(
    network: string,
    key: string,
    a: {
      kind: 'team-approval' | 'team-proposal'
      level: 'info' | 'success' | 'warning' | 'error'
      title: string
      message: string
      account: string | null
    },
  ): boolean
}

const SUCCESS = new Set(['accepted', 'reconciled'])

export class ProposalAlerts {
  private snapshot = new Map<string, string>()
  private initialLoad = true

  constructor(private readonly sink: TeamAlertSink) {}

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
    const baseline = this.snapshot.size === 0 && this.initialLoad
    for (const p of state.proposals.values()) {
      const key = `${p.approvals.length}|${p.rejection ? 1 : 0}|${p.signed ? 1 : 0}|${p.outcomes.length}`
      next.set(p.id, key)
      const before = this.snapshot.get(p.id)
      if (before === key) continue
      changed = true
      this.alert(p, facts, roster, baseline)
    }
    this.initialLoad = false
    this.snapshot = next
    return changed
  }

  private alert(p: Proposal, f: ViewerFacts, roster: Roster, baseline: boolean): void {
    const raise = (
      what: string,
      kind: 'team-approval' | 'team-proposal',
      level: 'info' | 'success' | 'warning',
      title: string,
      message: string,
    ) => this.sink.raise(p.network, `team:${p.id}:${what}`, { kind, level, title, message, account: p.account })
    const by = roster.members.get(p.initiator)?.name ?? p.initiator
    if (canApprove(p, roster, f)) {
      raise(
        'needs-approval',
        'team-approval',
        'warning',
        'Needs your approval',
        `${p.title} (proposed by ${by}; needs ${p.needs.count} approval(s) from ${p.needs.roles.join(' or ')}; expires ${formatWhen(p.expiresAt, Date.now())})`,
      )
      return
    }
    if (f.me !== p.initiator || baseline) return
    const last = p.outcomes.at(-1)
    // A write allowed outright: its initiator saw it go out and end on screen; only an outcome another
    // operator's desk recorded (a takeover finished it) is news.
    if (isRecordedWrite(p) && (!last || last.by === p.initiator || last.state === 'signed' || last.state === 'sent')) return
    if (last && last.state !== 'signed' && last.state !== 'sent') {
      const ok = SUCCESS.has(last.state) && !['notexecuted', 'notsent', 'failed'].includes(last.finalStatus ?? '')
      raise(
        `outcome:${last.state}`,
        'team-proposal',
        ok ? 'success' : 'warning',
        last.state === 'expired' ? 'Your proposal expired' : `Your proposal was executed: ${last.state}`,
        `${p.title}${last.finalStatus ? ` (${last.finalStatus})` : ''}${last.code ? `, code ${last.code}` : ''}`,
      )
      return
    }
    if (p.rejection) {
      raise('rejected', 'team-proposal', 'warning', 'Your proposal was rejected', `${p.title}: ${p.rejection.reason}`)
      return
    }
    if (!p.signed && quorumMet(p, roster))
      raise(
        'approved',
        'team-proposal',
        'success',
        'Your proposal was approved',
        `${p.title} (${p.approvals.length} approval(s)): it can be executed now`,
      )
  }
}

/** The plain notify line, for a core without an alert log. */
export function notifySink(notify: Notify): TeamAlertSink {
  return {
    raise: (_network, _key, a) => {
      notify('info', a.level, a.title, a.message)
      return true
    },
  }
}
