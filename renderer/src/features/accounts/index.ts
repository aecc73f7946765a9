/** Accounts: the operator's accounts and markets, and adding accounts (first run and later). */
export { useAccountsStore } from './store'
export { default as AccountSetup } from './components/AccountSetup.vue'
