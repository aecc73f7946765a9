/** Team mode: the team store link, roster, policy, the approvals queue and proposal detail (main verifies and decides). */
export { useTeamStore } from './store'
export { default as ApprovalsCount } from './components/ApprovalsCount.vue'
// Loaded on demand (their own chunks), so the shell starts without them.
export const TeamView = () => import('./TeamView.vue')
export const ApprovalsView = () => import('./ApprovalsView.vue')
export const ProposalView = () => import('./ProposalView.vue')
