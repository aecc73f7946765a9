/** The confirmation main raises before signing. */
export { useConfirmStore } from './store'
export { default as ConfirmDialog } from './components/ConfirmDialog.vue'
