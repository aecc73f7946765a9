export { journalFilter, journalState, pendingCounter, submissionView, viewState, writeOutcomeView } from './journal.views'
export { journalHandlers, type JournalChannels } from './handlers'
export { watchJournal } from './journal-watch'
export { journalReconcileHandlers, type JournalReconcileChannels } from './reconcile.handlers'
