/** Moving funds: transfers between accounts, withdrawals, account activation. */
export { useTransfersStore } from './store'
export { default as ActivateForm } from './components/ActivateForm.vue'
export { default as TransferForm } from './components/TransferForm.vue'
export { default as WithdrawForm } from './components/WithdrawForm.vue'
