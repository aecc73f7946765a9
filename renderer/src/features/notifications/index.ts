/** Notifications: the history panel and the transient toasts. */
export { useNotificationsStore, ALERT_KIND_LABEL } from './store'
export { default as NotificationsPanel } from './components/NotificationsPanel.vue'
export { default as ToastStack } from './components/ToastStack.vue'
