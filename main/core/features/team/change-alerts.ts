/**
 * The admin's "needs my signature" alerts: a roster or policy change collecting its admin quorum
 * that this admin may sign now (verified on this desk: valid signatures, not stale, not signed by
 * me). Raised into the desk's alert log like a proposal that needs my approval (kind
 * `team-approval`, once per change across restarts, the kind's switch and quiet hours honoured).
 */
import type { TeamChangeView } from '../../../contract/types'
import type { TeamAlertSink } from './proposal-alerts'

/** The alert log's network label for team-wide news (a change is not bound to one network). */
const TEAM_NETWORK = 'team'

export class ChangeAlerts {
  constructor(private readonly sink: TeamAlertSink) {}

  /** Raises one alert per change this admin may sign now; returns the ids that fired now. */
  seen(changes: readonly TeamChangeView[]): string[] {
    const fired: string[] = []
    for (const c of changes) {
      if (!c.canSign) continue
      const by = c.signers.map((s) => s.name ?? s.address).join(', ') || 'nobody yet'
      const ok = this.sink.raise(TEAM_NETWORK, `team-change:${c.id}:needs-signature`, {
        kind: 'team-approval',
        level: 'warning',
        title: 'Needs your signature',
        message:
          `${c.kind} change: ${c.summary.join('; ')} (signed by ${by}; ${c.signers.length} of ${c.quorum} admin signatures; desk team changes ` +
          `sign ${c.id})`,
        account: null,
      })
      if (ok) fired.push(c.id)
    }
    return fired
  }
}
