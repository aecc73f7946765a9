/** Reports: CSV exports (journal, fills, transfers and withdrawals) and realised PnL, computed in main. */
export { useReportsStore, type ReportKind, type ReportRequest } from './store'
// Loaded on demand (its own chunk), so the shell starts without it.
export const ReportsView = () => import('./ReportsView.vue')
