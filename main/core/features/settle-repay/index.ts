export { previewLines, previewRepay, previewSettle, repay, settle, type RepayRequest, type SettleRepayResult, type SettleRequest, type TransferPreview } from './settle-repay.service'
export { transferPreviewView } from './preview.views'
export { settleRepayHandlers, type SettleRepayChannels } from './handlers'
