export {
  DESK_EVENTS,
  PolicyEngine,
  TEAM_APPROVED,
  freesAt,
  type AddressView,
  type Move,
  type MoveKind,
  type OrderBandCheck,
  type PolicyEngineOptions,
  type PolicyState,
  type PriceBandOverride,
  type RuleState,
  type Valuer,
} from './engine'
export {
  describeExchange,
  exchangeIdentity,
  exchangeKey,
  exchangeTag,
  serviceOrigin,
  type ExchangeIdentity,
  type PolicyNetwork,
} from './exchange'
export { PolicyBook, type PolicyBookOptions } from './policy-book'
export { checkDestination } from './destination'
export { PolicyFile, deskHaltPath, exchangePolicyPath, policyFilePath, type PolicyDoc } from './policy-file'
export { journalUsage, type UsageEntry } from './usage'
export {
  ASSET_RULES,
  DAY_MS,
  REAL_COOLING_OFF_MS,
  SANDBOX_COOLING_OFF_MS,
  USD_RULES,
  canonicalValue,
  isTightening,
  ruleSpec,
} from './rules'
export {
  guardOrder,
  guardTransfer,
  guardWithdraw,
  guardWrite,
  markValuer,
  policyEngine,
  previewPriceBand,
  valueAtMarks,
  type CheckedOrder,
  type MoveRequest,
  type OrderBandPreview,
  type PolicyAccess,
} from './gate'
