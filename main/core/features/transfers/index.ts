export { ACTIVATION_FEE_ASSETS, ACTIVATION_FEE_ATOMS, activateFor, previewTransfer, transfer, withdraw, type TransferPreviewData, type TransferRequest, type WithdrawRequest } from './transfers.service'
export { previewWithdraw, type WithdrawPreviewData } from './withdraw-preview'
export { transfersHandlers, type TransfersChannels, type TransfersDeps } from './handlers'
