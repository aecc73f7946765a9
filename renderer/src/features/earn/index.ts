/** The earn pool: deposits, yield, withdrawals. */
export { useEarnStore } from './store'
// Loaded on demand (its own chunk), so the shell starts without it.
export const EarnView = () => import('./EarnView.vue')
