/** The local journal of writes, and following one write to its final state. */
export { useJournalStore } from './store'
export { useAction } from './use-action'
export { default as WriteOutcomeTracker } from './components/WriteOutcomeTracker.vue'
// Loaded on demand (its own chunk), so the shell starts without it.
export const JournalView = () => import('./JournalView.vue')
