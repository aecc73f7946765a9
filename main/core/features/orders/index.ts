export {
  cancelAllInMarket,
  cancelOrder,
  checkOrderTicket,
  emergencyCancelAll,
  openOrdersAcross,
  orderWrite,
  type BookForWrite,
  type CheckedTicket,
  type EmergencyCancelResult,
  type OrderResult,
  type OrdersContext,
  type OrderTicket,
} from './orders.service'
export { ordersHandlers, type OrdersChannels } from './handlers'
export { BookTops, bookTopsFor, previewOrder, type BookTop, type OrderPreviewRequest } from './order-preview'
