import type { SettingsStore } from '../../config/settings'
import { DeskError } from '../../errors/desk-error'
import type { HandlerTable } from '../../ipc/dispatch'
import type { Journal } from '../../journal'
import { journalFilter as toJournalFilter, submissionView } from './journal.views'

export type JournalChannels = 'journal.query' | 'journal.export' | 'journal.get' | 'journal.acknowledge' | 'journal.actionTypes'

type ContractFilter = Parameters<typeof toJournalFilter>[0]

export function journalHandlers(d: {
  journal: Journal
  settings: SettingsStore
  now: () => number
  vault: { requireUnlocked(): unknown }
}): Pick<HandlerTable, JournalChannels> {
  /** Journal queries are scoped to the selected network. */
  const filter = (f: ContractFilter) =>
    toJournalFilter({
      network: d.settings.load().selectedNetwork,
      limit: 1000,
      ...f,
      ...(f.account ? { account: f.account.toLowerCase() } : {}),
    })
  return {
    'journal.query': (f) => d.journal.list(filter(f)).map((s) => submissionView(d.journal, s)),
    'journal.export': ({ format, filter: f }) => {
      const stamp = new Date(d.now()).toISOString().replace(/[:.]/g, '-')
      return {
        filename: `treasury-desk-journal-${stamp}.${format}`,
        mime: format === 'csv' ? 'text/csv' : 'application/json',
        content: d.journal.export(filter(f), format),
      }
    },
    'journal.actionTypes': () => d.journal.actionTypes(d.settings.load().selectedNetwork),
    'journal.get': ({ cloid }) => {
      const s = d.journal.findByKey(d.settings.load().selectedNetwork, cloid)
      if (!s) throw new DeskError('NotInJournal', `no journal entry for ${cloid} on this network`)
      return submissionView(d.journal, s)
    },
    'journal.acknowledge': ({ id, note }) => {
      d.vault.requireUnlocked()
      const s = d.journal.get(Number(id))
      if (!s || s.network !== d.settings.load().selectedNetwork)
        throw new DeskError('NotInJournal', `no journal entry #${id} on this network`)
      return submissionView(d.journal, d.journal.acknowledgeUnresolved(s.id, note))
    },
  }
}
