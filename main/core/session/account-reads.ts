import type { InfoClient } from '../exchange/info/client'
import * as T from '../exchange/info/types'
import type { Lane } from '../exchange/scheduler'

/**
 * The /info reads the write services validate against, as plain data: ids as numbers where
 * they are small, atoms and positions as bigint. One interface so the services can be tested
 * with a fake and run on the typed /info client.
 */
export interface AssetInfo {
  assetId: number
  symbol: string
  decimals: number
  withdrawFeeAtoms: bigint
}

export interface MarketInfo {
  marketId: number
  priceDecimals: number
  maxPriceSigFigs: number
  baseQuantityDecimals: number
  quoteBalanceDecimals: number
  creditTrading: boolean
  baseAssetId: number | null
  quoteAssetId: number | null
  symbol: string | null
}

export interface CreditLine {
  /** false for an address without a credit line */
  isCredit: boolean
  status: 'active' | 'frozen' | null
  creditUsdAtoms: bigint | null
  availableUsdAtoms: bigint | null
  lastKnownAvailableUsdAtoms: bigint | null
  whitelistedMarketIds: string[]
}

export interface PositionInfo {
  assetId: number
  symbol: string
  actualQty: bigint
  pendingExposureQty: bigint
}

export interface BalanceInfo {
  assetId: number
  /** display decimals as the service reports them */
  available: string
  locked: string
}

export interface AgentSlotInfo {
  slotId: number
  agent: string | null
  epoch: bigint | null
}

export interface OpenOrderInfo {
  oid: string
  cloid: string | null
  marketId: number | null
  remainingQty: string
}

export interface AccountReads {
  assets(): Promise<AssetInfo[]>
  markets(): Promise<MarketInfo[]>
  /** Minimum order notional (quote atoms) per quote asset id. */
  quoteMinimums(): Promise<Map<number, bigint>>
  /** Minimum withdraw atoms per `${chainId}:${assetId}`. */
  withdrawMinimums(): Promise<Map<string, bigint>>
  accountExists(user: string): Promise<{ found: boolean; status: 'active' | 'frozen' | null }>
  creditLine(user: string): Promise<CreditLine>
  positions(user: string): Promise<PositionInfo[]>
  balances(user: string): Promise<BalanceInfo[]>
  agents(user: string): Promise<AgentSlotInfo[]>
  /** Open orders in one market, or every market with -1. */
  openOrders(user: string, marketId: number): Promise<{ orders: OpenOrderInfo[]; truncated: boolean }>
  /** Whether one order is on the book now (orderStatus: open or partially filled and resting); for a truncated listing. */
  orderIsOpen?(q: { oid: string } | { user: string; marketId: number; cloid: string }): Promise<boolean>
  /**
   * What a write itself waits on, when the reads can answer it faster than the plain reads
   * (live state first, else /info ahead of every screen's read; see LiveAccountReads). Without
   * them, the plain reads above are used.
   */
  signerAgents?(user: string): Promise<AgentSlotInfo[]>
  tradingGate?(user: string): Promise<CreditLine>
  /** An accepted cancel's orders leave the live state at once (every screen follows it). */
  noteCancelled?(user: string, what: { oids?: readonly string[]; marketIds?: readonly number[] }): void
  writeOpenOrders?(
    user: string,
    marketId: number,
    enough?: (orders: OpenOrderInfo[], afterWrite: boolean) => boolean,
  ): Promise<{ orders: OpenOrderInfo[]; truncated: boolean }>
}

/** AccountReads over the typed /info client, in the operator lane (an operator is waiting). */
export function infoAccountReads(info: InfoClient, lane: Lane = 'operator'): AccountReads {
  const o = { lane }
  return {
    async assets() {
      const r = await info.call(T.assets, {}, o)
      return r.assets.map((a) => ({
        assetId: a.asset_id,
        symbol: a.symbol,
        decimals: a.balance_decimals,
        withdrawFeeAtoms: a.withdraw_fee_atoms,
      }))
    },
    async markets() {
      const r = await info.call(T.markets, {}, o)
      return r.markets.map((m) => ({
        marketId: m.market_id,
        priceDecimals: m.price_decimals,
        maxPriceSigFigs: m.max_price_sig_figs,
        baseQuantityDecimals: m.base_quantity_decimals,
        quoteBalanceDecimals: m.quote_balance_decimals,
        creditTrading: m.credit_trading,
        baseAssetId: m.base_asset_id ?? null,
        quoteAssetId: m.quote_asset_id ?? null,
        symbol: m.symbol ?? null,
      }))
    },
    async quoteMinimums() {
      const rows = await info.call(T.quoteAssets, {}, o)
      return new Map(rows.map((q) => [q.asset_id, q.min_quantity_atoms]))
    },
    async withdrawMinimums() {
      const rows = await info.call(T.accountingWithdrawTokens, {}, o)
      return new Map(rows.map((t) => [`${t.chain_id}:${t.asset_id}`, t.min_withdraw_atoms]))
    },
    async accountExists(user) {
      const r = await info.call(T.accountStatus, { user }, o)
      return { found: r.found, status: r.status }
    },
    async creditLine(user) {
      const r = await info.call(T.spotCreditAccount, { user }, o)
      const isCredit = r.found !== false && r.status != null && r.credit_usd_atoms != null
      return {
        isCredit,
        status: r.status ?? null,
        creditUsdAtoms: r.credit_usd_atoms ?? null,
        availableUsdAtoms: r.available_usd_atoms ?? null,
        lastKnownAvailableUsdAtoms: r.last_known_available_usd_atoms ?? null,
        whitelistedMarketIds: r.credit_trading_whitelisted_market_ids ?? [],
      }
    },
    async positions(user) {
      const rows = await info.call(T.spotCreditPositions, { user }, o)
      return rows.map((p) => ({
        assetId: p.asset_id,
        symbol: p.symbol,
        actualQty: p.actual_qty,
        pendingExposureQty: p.pending_exposure_qty,
      }))
    },
    async balances(user) {
      const rows = await info.call(T.userBalances, { user }, o)
      return rows.map((b) => ({ assetId: b.asset_id, available: b.available, locked: b.locked }))
    },
    async agents(user) {
      const r = await info.call(T.userAgents, { user }, o)
      return r.agents.map((a) => ({ slotId: a.slot_id, agent: a.agent, epoch: a.epoch ?? null }))
    },
    async orderIsOpen(q) {
      const params = 'oid' in q ? { oid: q.oid } : { user: q.user, market_id: q.marketId, cloid: q.cloid }
      const r = await info.call(T.orderStatus, params, o)
      return r.found && (r.status === 'open' || r.status === 'partiallyfilledresting')
    },
    async openOrders(user, marketId) {
      const r = await info.call(T.openOrders, { user, market_id: marketId }, o)
      return {
        truncated: r.truncated,
        orders: r.orders.map((x) => ({
          oid: String(x.oid),
          cloid: x.cloid ?? null,
          marketId: x.market_id ?? (marketId >= 0 ? marketId : null),
          remainingQty: x.remaining_qty,
        })),
      }
    },
  }
}
