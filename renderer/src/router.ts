import { createRouter, createWebHashHistory, type Router } from 'vue-router'
import { useSessionStore } from './stores/session'
// The two first screens load with the shell (no chunk waterfall on start); the rest on demand.
import OverviewView from './views/OverviewView.vue'
import UnlockView from './views/UnlockView.vue'

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
      { path: '/account/:address', name: 'account', component: () => import('./views/AccountView.vue'), props: true, meta: { title: 'Account' } },
      { path: '/credit/:address?', name: 'credit', component: () => import('./views/CreditView.vue'), props: true, meta: { title: 'Credit health' } },
      { path: '/agents/:owner?', name: 'agents', component: () => import('./views/AgentsView.vue'), props: true, meta: { title: 'Agents' } },
      { path: '/settle', name: 'settle', component: () => import('./views/SettleView.vue'), meta: { title: 'Settle and repay' } },
      { path: '/earn/:address?', name: 'earn', component: () => import('./views/EarnView.vue'), props: true, meta: { title: 'Earn' } },
      { path: '/journal', name: 'journal', component: () => import('./views/JournalView.vue'), meta: { title: 'Journal' } },
      { path: '/settings', name: 'settings', component: () => import('./views/SettingsView.vue'), meta: { open: true, title: 'Settings' } },
      // The web host's token fragment ("#token=...") lands here: go to the start screen.
      { path: '/:rest(.*)*', redirect: '/overview' },
    ],
  })
  router.beforeEach(async (to) => {
    const session = useSessionStore()
    if (!session.appState) await session.load()
    if (!to.meta.open && !session.unlocked) return { name: 'unlock', query: { next: to.fullPath } }
    return true
  })
  return router
}
