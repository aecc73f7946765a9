/** Placing and cancelling orders. */
export { useOrdersStore } from './store'
export { default as OrderTicket } from './components/OrderTicket.vue'
