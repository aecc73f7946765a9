/** The operator's guardrails (enforced in main): rules, address book, halt and resume, refusals. */
export { usePolicyStore } from './store'
export { refusalFacts, blockingWarning, POLICY_WARNING, type RefusalFacts } from './refusal'
export { default as HaltButton } from './components/HaltButton.vue'
export { default as HaltPanel } from './components/HaltPanel.vue'
export { default as RefusalNotice } from './components/RefusalNotice.vue'
// Loaded on demand (its own chunk), so the shell starts without it.
export const PolicyView = () => import('./PolicyView.vue')
