/** Agent slots of an owner: approve, revoke, rotate. */
export { useAgentsStore } from './store'
// Loaded on demand (its own chunk), so the shell starts without it.
export const AgentsView = () => import('./AgentsView.vue')
