/** The confirmation main raises before signing (a write's outcome: journal's WriteOutcomeTracker). */
export { useConfirmStore } from './store'
export { default as ConfirmDialog } from './components/ConfirmDialog.vue'
