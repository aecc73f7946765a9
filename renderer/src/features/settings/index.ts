/** Settings: networks, passphrase change, preferences. */
export { useSettingsStore } from './store'
// Loaded on demand (its own chunk), so the shell starts without it.
export const SettingsView = () => import('./SettingsView.vue')
