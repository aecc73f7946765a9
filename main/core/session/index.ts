export { NetworkSession, type NetworkSessionOptions } from './network-session'
export { SessionHolder, unlockedWriteSide, type SessionSource, type WriteAccess } from './session-holder'
export { EarnSigningClient, WriteSide, type WriteSideOptions, type WriteVault, type ReconcileReport } from './write-side'
export { LastKnownState, type Known, type StateStore } from './last-known'
export { MarketDataCache, markState, type MarketData, type AssetMeta, type Mark, type MarkState } from './market-data'
export {
  infoAccountReads,
  type AccountReads,
  type AssetInfo,
  type MarketInfo,
  type BalanceInfo,
  type AgentSlotInfo,
  type OpenOrderInfo,
} from './account-reads'
export {
  checkAddress,
  fmt,
  outcomeOf,
  parsePositiveAmount,
  requireOwnerKey,
  resolveAsset,
  short,
  type EarnServiceContext,
  type WriteContext,
  type WriteOutcome,
} from './write-context'
export { PREFERRED_SLOT_KIND, tradingSignerFor, type AgentKeys, type AgentKeyStore, type TradingSigner } from './trading-signer'
export { USD_DECIMALS, creditContribution, usdAtMark } from './valuation'
export { LiveAccountReads, withDataAge, DEFAULT_DATA_MAX_AGE_MS, type LiveReadsOptions } from './live-reads'
