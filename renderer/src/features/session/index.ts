/** App state, the vault (create, unlock, lock), the selected network and settings. */
export { useSessionStore } from './store'
export { default as NetworkBanner } from './components/NetworkBanner.vue'
export { default as StreamStatus } from './components/StreamStatus.vue'
export { default as UnlockView } from './UnlockView.vue'
export { budgetSpent, liveSplit, streamWords, type StreamWords } from './stream-words'
