/** The portfolio overview of every account. */
export { useOverviewStore } from './store'
export { default as OverviewView } from './OverviewView.vue'
