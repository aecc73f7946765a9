/** The desk's journal reads: list, one entry with its history, export. */
import { DeskError } from '../../errors/desk-error'
import type { HandlerArgs, HandlerTable } from '../../ipc/dispatch'
import type { SubmissionFilter } from '../../journal'
import type { CliDeps } from './cli-deps'

export type CliJournalChannels = 'cli.journal.list' | 'cli.journal.show' | 'cli.journal.export'

function toFilter(f: HandlerArgs<'cli.journal.list'>['filter']): SubmissionFilter {
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

export function cliJournalHandlers(d: CliDeps): Pick<HandlerTable, CliJournalChannels> {
  return {
    // The signed body and raw response stay out of the list (`show` has them).
    'cli.journal.list': ({ filter }) => d.journal.list(toFilter(filter)).map(({ body: _b, response: _r, ...rest }) => rest),
    'cli.journal.show': ({ id }) => {
      const e = d.journal.get(id)
      if (!e) throw new DeskError('SubmissionNotFound', `no journal entry #${id}`)
      return { ...e, history: d.journal.history(id) }
    },
    'cli.journal.export': ({ filter, format }) => ({ format, content: d.journal.export(toFilter(filter), format) }),
  }
}
