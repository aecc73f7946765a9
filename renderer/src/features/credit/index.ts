/** Credit health of one account over time. */
export { useCreditStore } from './store'
// Loaded on demand (its own chunk), so the shell starts without it.
export const CreditView = () => import('./CreditView.vue')
