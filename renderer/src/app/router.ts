import { createRouter, createWebHashHistory, type Router } from 'vue-router'
import { AccountView } from '../features/account-detail'
import { AgentsView } from '../features/agents'
import { CreditView } from '../features/credit'
import { EarnView } from '../features/earn'
import { JournalView } from '../features/journal'
// The two first screens load with the shell (no chunk waterfall on start); the others are
// exported by their features as loaders, so each is its own chunk.
import { OverviewView, useOverviewStore } from '../features/overview'
import { PolicyView } from '../features/policy'
import { ReportsView } from '../features/reports'
import { UnlockView, useSessionStore } from '../features/session'
import { SettingsView } from '../features/settings'
import { SettleView } from '../features/settle-repay'
import { ApprovalsView, ProposalView, TeamView } from '../features/team'

/**
 * Hash history: the web host puts its token in the fragment as `#token=...`; the router
 * uses `#/path`, and the bridge has already read the token by the time the router starts.
 */
export function createDeskRouter(): Router {
  const router = createRouter({
    history: createWebHashHistory(),
    routes: [
      { path: '/', redirect: '/overview' },
      { path: '/unlock', name: 'unlock', component: UnlockView, meta: { open: true, title: 'Unlock' } },
      { path: '/overview', name: 'overview', component: OverviewView, meta: { title: 'Overview' } },
      { path: '/account/:address', name: 'account', component: AccountView, props: true, meta: { title: 'Account' } },
      { path: '/credit/:address?', name: 'credit', component: CreditView, props: true, meta: { title: 'Credit health' } },
      { path: '/agents/:owner?', name: 'agents', component: AgentsView, props: true, meta: { title: 'Agents' } },
      { path: '/settle', name: 'settle', component: SettleView, meta: { title: 'Settle and repay' } },
      { path: '/earn/:address?', name: 'earn', component: EarnView, props: true, meta: { title: 'Earn' } },
      { path: '/journal', name: 'journal', component: JournalView, meta: { title: 'Journal' } },
      { path: '/policy', name: 'policy', component: PolicyView, meta: { title: 'Policy' } },
      { path: '/reports', name: 'reports', component: ReportsView, meta: { title: 'Reports' } },
      { path: '/team', name: 'team', component: TeamView, meta: { title: 'Team' } },
      { path: '/approvals', name: 'approvals', component: ApprovalsView, meta: { title: 'Approvals' } },
      { path: '/approvals/:id', name: 'proposal', component: ProposalView, props: true, meta: { title: 'Proposal' } },
      { path: '/settings', name: 'settings', component: SettingsView, meta: { open: true, title: 'Settings' } },
      // The web host's token fragment ("#token=...") lands here: go to the start screen.
      { path: '/:rest(.*)*', redirect: '/overview' },
    ],
  })
  router.beforeEach(async (to) => {
    const session = useSessionStore()
    if (!session.appState) await session.load()
    if (!to.meta.open && !session.unlocked) return { name: 'unlock', query: { next: to.fullPath } }
    // The overview is asked for while the shell and the view mount, not after (first paint at 200 accounts).
    if (to.name === 'overview') void useOverviewStore().load()
    return true
  })
  return router
}
