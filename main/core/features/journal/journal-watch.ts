import { shortAddress } from '../../../contract/format'
import type { EventHub } from '../../ipc/events'
import type { Notify } from '../../ipc/notify'
import type { Journal, Submission } from '../../journal'
import { submissionView } from './journal.views'

function notifySubmission(notify: Notify, s: Submission): void {
  if (s.state === 'rejected') notify('rejection', 'error', `Rejected: ${s.actionType}`, `${s.code ?? 'rejected'} — ${s.summary}`)
  else if (s.state === 'unknown')
    notify(
      'rejection',
      'warning',
      `Outcome unknown: ${s.actionType}`,
      `Reconciling by cloid ${shortAddress(s.key)} (the journal has it in full); do not resubmit. ${s.summary}`,
    )
  else if (s.state === 'failed')
    notify('rejection', 'error', `Failed: ${s.actionType}`, `${s.code ?? 'failed'} — ${s.summary}. ${s.advice ?? ''}`.trim())
  else if (s.state === 'reconciled') notify('info', 'info', `Reconciled: ${s.actionType}`, `${s.finalStatus ?? ''} — ${s.summary}`)
}

/** Pushes every journal change (new entries, moves by the submitter or the reconciler) and notifies outcomes. */
export function watchJournal(journal: Journal, events: EventHub, notify: Notify): () => void {
  return journal.onChange((s) => {
    events.emit('journal.changed', submissionView(journal, s))
    notifySubmission(notify, s)
  })
}
