export {
  earnCancelWrite,
  earnClaimWrite,
  earnOverview,
  earnRequestWrite,
  previewCreateWithdrawal,
  withdrawalView,
  type CreateWithdrawalPreview,
  type EarnAssetView,
  type EarnOverview,
  type WithdrawalView,
} from './earn.service'
export { earnOverviewView, earnWithdrawalView } from './earn.views'
export { earnHandlers, type EarnChannels, type EarnDeps } from './handlers'
export { EarnLive, type EarnLiveDeps } from './earn-live'
