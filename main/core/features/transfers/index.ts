export {
  ACTIVATION_FEE_ASSETS,
  ACTIVATION_FEE_ATOMS,
  activationWrite,
  previewTransfer,
  transferWrite,
  withdrawWrite,
  type TransferPreviewData,
  type TransferRequest,
  type WithdrawRequest,
} from './transfers.service'
export { previewWithdraw, type WithdrawPreviewData } from './withdraw-preview'
export { transfersHandlers, type TransfersChannels, type TransfersDeps } from './handlers'
