export {
  describeSettleRepay,
  previewLines,
  previewRepay,
  previewSettle,
  repayWrite,
  settleWrite,
  type RepayRequest,
  type SettleRequest,
  type TransferPreview,
} from './settle-repay.service'
export { transferPreviewView } from './preview.views'
export { settleRepayHandlers, type SettleRepayChannels } from './handlers'
