/** Settling and repaying credit between a credit account and a cash account. */
export { useSettleStore } from './store'
// Loaded on demand (its own chunk), so the shell starts without it.
export const SettleView = () => import('./SettleView.vue')
