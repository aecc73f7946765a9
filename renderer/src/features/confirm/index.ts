/** The confirmation main raises before signing, and a write's outcome as main decided it. */
export { useConfirmStore } from './store'
export { default as ConfirmDialog } from './components/ConfirmDialog.vue'
export { default as WriteOutcomeTracker } from './components/WriteOutcomeTracker.vue'
