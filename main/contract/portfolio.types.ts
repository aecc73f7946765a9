/**
 * The portfolio's read side: balances, the overview, account pages, credit health, markets and
 * the screen leases that keep them live. Ages and reasons of live state are part of each view.
 */

import type { Address, Decimal } from './common.types'
import type { AccountView } from './accounts.types'

export interface BalanceView {
  assetId: number
  symbol: string
  available: Decimal
  locked: Decimal
  total: Decimal
  /** USD value at mark, null when the mark is missing or stale (never shown as zero). */
  usdValue: Decimal | null
  /** why usdValue is null (no mark, stale mark, oracle down); absent when computed */
  usdReason?: string | null
  /** source time of the mark used, when there was one */
  markAsOf?: number | null
}

export interface CreditPositionView {
  assetId: number
  symbol: string
  actual: Decimal
  pendingExposure: Decimal
  ltvPercent: number
  /** USD contribution to the credit line after the LTV haircut; null without a mark. */
  contributionUsd: Decimal | null
  markUsd: Decimal | null
  markAgeMs: number | null
}

export type WarningLevel = 'ok' | 'watch' | 'warning' | 'critical' | 'frozen' | 'unknown'

export interface CreditHealthView {
  address: Address
  status: 'active' | 'frozen'
  creditUsd: Decimal
  availableUsd: Decimal | null
  lastKnownAvailableUsd: Decimal | null
  /** true when availableUsd is null because a mark is stale and lastKnown is shown instead. */
  marksStale: boolean
  oracle: { status: 'available' | 'unavailable'; reasonCode: string | null }
  positions: CreditPositionView[]
  warning: WarningLevel
  tradingWhitelist: string[]
  /** why `availableUsd` is null, in words (stale mark, oracle down) */
  availableReason?: string | null
}

export interface CreditSample {
  timeMs: number
  creditUsd: Decimal
  availableUsd: Decimal | null
}

export interface OverviewRow {
  account: AccountView
  totalUsd: Decimal | null
  available: BalanceView[]
  credit: { creditUsd: Decimal; availableUsd: Decimal | null; warning: WarningLevel } | null
  agentsInUse: number
  pendingJournal: number
  /** when this row's data was fetched; the UI shows its age. null when never fetched. */
  fetchedAt: number | null
  stale: boolean
  /** why totalUsd is null; absent or null when it was computed */
  totalUsdReason?: string | null
  /** 'cache' while the row shows last-known state from the previous run */
  source?: 'live' | 'info' | 'cache'
  /** why this row is not current (its read failed); its values are the last known ones */
  readError?: string | null
  /** why `credit.availableUsd` is null (a stale or missing mark, the oracle), or why the credit line is not current */
  creditReason?: string | null
}

export interface OverviewView {
  rows: OverviewRow[]
  totals: { assetId: number; symbol: string; total: Decimal; usdValue: Decimal | null }[]
  totalUsd: Decimal | null
  asOf: number
  /** age and reason of totalUsd (credit accounts included, in USD) */
  totalUsdAge?: ValueAge
  /** per-asset ages and reasons, keyed by asset id, for the rows of `totals` */
  totalsAge?: Record<string, ValueAge>
  /** 'cache': painted from last-known state at start; fresh values follow by push */
  source?: 'live' | 'cache'
}

export interface OpenOrderView {
  marketId: string
  oid: string
  cloid: string | null
  side: 'bid' | 'ask'
  price: Decimal
  originalQty: Decimal
  remainingQty: Decimal
  filledQty: Decimal
  timeMs: number | null
}

export interface FillView {
  tid: string
  marketId: string
  side: 'B' | 'A' | null
  price: Decimal
  size: Decimal
  /** null when the service reports no fee */
  fee: Decimal | null
  feeAssetId: number | null
  timeMs: number
  oid: string | null
  cloid: string | null
}

export interface AccountDetailView {
  account: AccountView
  balances: BalanceView[]
  credit: CreditHealthView | null
  openOrders: OpenOrderView[]
  fills: FillView[]
  fetchedAt: number | null
  /** where each part came from and when: streams first, /info for what they lack */
  ages?: { balances: number | null; credit: number | null; openOrders: number | null; fills: number | null }
  source?: 'live' | 'info' | 'cache'
}

export interface MarketView {
  marketId: string
  symbol: string
  priceDecimals: number
  baseQuantityDecimals: number
  baseAssetId: number
  quoteAssetId: number
  creditTrading: boolean
}

export interface AssetView {
  assetId: number
  symbol: string
  balanceDecimals: number
  creditLtv: number
}

/** What `portfolio.status` reads: the overview of the named accounts, now, on the selected network. */
export interface StatusOverviewView extends OverviewView {
  network: string
}

/** Why a USD value is missing, and how old the figures behind one are. */
export interface ValueAge {
  /** ms since epoch of the oldest input (balance or mark) behind the value; null when unknown */
  asOf: number | null
  /** why the value could not be computed ("mark for BTC stale since 12:03:04 UTC"); null when it was */
  reason: string | null
}

/**
 * What a screen watches (`screen.watch`): an account page, a credit page, or the accounts the
 * overview shows through its filter (at most 200). Main follows the target live while the lease holds.
 */
export type ScreenTarget =
  { kind: 'account'; address: Address } | { kind: 'credit'; address: Address } | { kind: 'overview'; addresses: Address[] }

/** A screen's lease: renew it (`screen.watch` with the same id) within `ttlMs`, or it lapses. */
export interface ScreenLeaseView {
  leaseId: string
  /** The lease lapses this long after its last renewal. */
  ttlMs: number
  /** How often the renderer renews it (a third of `ttlMs`). */
  renewEveryMs: number
}
