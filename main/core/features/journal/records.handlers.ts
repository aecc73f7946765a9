/**
 * The journal's records as the journal keeps them, over every network (the desk's `journal
 * list/show/export`): several action types and states at once, the journal's own state names.
 * The screens read the selected network's entries as views (`journal.query`).
 */
import type { JournalRecordDetail, JournalRecordView } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'
import type { HandlerArgs, HandlerTable } from '../../ipc/dispatch'
import type { Journal, Submission, SubmissionFilter } from '../../journal'

export type JournalRecordsChannels = 'journal.records' | 'journal.record' | 'journal.records.export'

function toFilter(f: HandlerArgs<'journal.records'>['filter']): SubmissionFilter {
  const out: SubmissionFilter = {}
  if (f.network) out.network = f.network
  if (f.account) out.account = f.account
  if (f.actionType) out.actionType = f.actionType
  if (f.state) out.state = f.state
  if (f.since !== undefined) out.since = f.since
  if (f.until !== undefined) out.until = f.until
  if (f.limit !== undefined) out.limit = f.limit
  return out
}

/** The record without its signed body and raw answer (typed: the contract's view is the journal's record). */
function recordView({ body: _b, response: _r, ...rest }: Submission): JournalRecordView {
  return rest
}

export function journalRecordsHandlers(d: { journal: Journal }): Pick<HandlerTable, JournalRecordsChannels> {
  return {
    'journal.records': ({ filter }) => d.journal.list(toFilter(filter)).map(recordView),
    'journal.record': ({ id }): JournalRecordDetail => {
      const e = d.journal.get(id)
      if (!e) throw new DeskError('SubmissionNotFound', `no journal entry #${id}`)
      return { ...e, history: d.journal.history(id) }
    },
    'journal.records.export': ({ filter, format }) => ({ format, content: d.journal.export(toFilter(filter), format) }),
  }
}
