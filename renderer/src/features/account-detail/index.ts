/** One account's balances, positions and open orders, with its actions. */
export { useAccountDetailStore } from './store'
// Loaded on demand (its own chunk), so the shell starts without it.
export const AccountView = () => import('./AccountView.vue')
