/**
 * The sandbox trading service's public contract: what the HTTP/WS layer, the scenario
 * and the admin endpoint code against. Addresses are lowercase `0x` hex everywhere.
 * Amounts are bigint atoms in admin calls and decimal strings in every payload.
 */
import type { Address, Hex } from 'viem'

/** What an HTTP route (or a WebSocket `post`) answers. `body` is JSON-serialisable. */
export interface HttpResult {
  status: number
  body: unknown
  headers?: Record<string, string>
}

// ---------- WebSocket payload shapes (section 6), produced ready to send ----------

export interface WsLevel {
  px: string
  sz: string
  n: number
}

export interface WsTrade {
  coin: string
  /** Aggressor: `B` taker bought, `A` taker sold. */
  side: 'B' | 'A'
  px: string
  sz: string
  time: number
  tid: number
  /** [buyer, seller] */
  users: [Address, Address]
}

export interface WsL2Book {
  coin: string
  levels: [WsLevel[], WsLevel[]]
  time: number
}

export interface WsBbo {
  coin: string
  time: number
  bbo: [WsLevel | null, WsLevel | null]
}

export interface WsAllMids {
  mids: Record<string, string>
}

export interface WsFill {
  coin: string
  px: string
  sz: string
  side: 'B' | 'A'
  time: number
  oid: number
  crossed: boolean
  fee: string
  /** asset id as a string; omitted only when the fill has no fee record */
  feeToken?: string
  tid: number
  cloid: string | null
}

export interface WsOrder {
  coin: string
  side: 'B' | 'A'
  limitPx: string
  sz: string
  oid: number
  timestamp: number
  origSz: string
  cloid: string | null
}

export type WsOrderStatus =
  | 'open'
  | 'filled'
  | 'canceled'
  | 'selfTradeCanceled'
  | 'badAloPxRejected'
  | 'iocCancelRejected'
  | 'fokCancelRejected'
  | 'marketOrderNoLiquidityRejected'
  | (string & {})

export interface WsOrderUpdate {
  order: WsOrder
  status: WsOrderStatus
  statusTimestamp: number
}

export interface WsOpenOrders {
  user: Address
  orders: WsOrder[]
}

export interface WsSpotState {
  user: Address
  balances: { coin: string; token: number; total: string; hold: string }[]
}

export interface WsCreditPosition {
  asset_id: number
  symbol: string
  actual_display: string
  actual_qty: string
  pending_exposure_display: string
  pending_exposure_qty: string
}

export interface WsSpotCreditState {
  user: Address
  authorized: boolean
  status?: 'active' | 'frozen'
  creditUsdAtoms?: string
  positions: WsCreditPosition[]
}

/** A balance transfer executed in a block (used e.g. by the earn pool's direct-transfer deposits). */
export interface TransferEvent {
  from: Address
  to: Address
  assetId: number
  atoms: bigint
  height: number
  txIndex: number
  eventIndex: number
  txHash: Hex
  timeMs: number
}

/** Everything one block changed, for the push channels. */
export interface BlockEvents {
  height: number
  timeMs: number
  /** per market, in execution order */
  trades: WsTrade[]
  /** owner address -> its order transitions of this block, in order */
  orderUpdates: { user: Address; update: WsOrderUpdate }[]
  /** one entry per side of each trade */
  fills: { user: Address; fill: WsFill }[]
  transfers: TransferEvent[]
  /** market ids (decimal strings) whose book changed */
  touchedMarkets: Set<string>
  /** owners whose balances, orders or credit state changed */
  touchedUsers: Set<Address>
}

// ---------- faults toggled by the admin endpoint ----------

/** A fault fires on the next `count` eligible requests, or else with `probability` (0..1). */
export interface FaultRule {
  count?: number
  probability?: number
}

export type OracleReasonCode = 'ProviderError' | 'MissingRoute' | 'StalePrice' | 'InvalidPrice'

export interface TradingFaults {
  /** /trade answers the wait-budget `timeout`; `executed` decides whether the tx still runs. */
  tradeTimeout: (FaultRule & { executed: boolean }) | null
  /** /trade answers 503 `Unavailable` (never executed). */
  unavailable503: FaultRule | null
  /** /trade answers 504 `NodeUnreachable`; `executed` decides whether the tx still runs. */
  nodeUnreachable504: (FaultRule & { executed: boolean }) | null
  /** /info and /trade answer 429 `RateLimited`. */
  rateLimited: (FaultRule & { retryAfterMs?: number }) | null
  /** Only cancels are accepted while set. */
  placeOrderSuspended: boolean
  /** Every mark counts as stale (available_usd_atoms becomes null where positions exist). */
  staleMarks: boolean
  /** Oracle reports `unavailable` with this reason; orders from credit accounts are refused. */
  oracleUnavailable: OracleReasonCode | null
  /** /trade refuses admission with 503 `QueryLagBackpressure` (never executed). */
  queryLagBackpressure?: FaultRule | null
  /**
   * The next matching write (by `cloid`, else the next `count` writes) is included in a block and
   * fails there without applying anything: `txStatusByCloid` reports `failed` (no single code);
   * /trade answers `accepted` with `failed` error leaves.
   */
  failTx?: { cloid?: string; count?: number } | null
  /**
   * The next matching write is included in a block and fails with one of the six envelope-level
   * execution failures: /trade answers `rejected` with that code and a `tx_hash`.
   * `InvalidBatchLength` only ever hits a `batch` write.
   */
  envelopeFailure?: (FaultRule & { code: EnvelopeFailureCode }) | null
  /** Fills before fee activation: no fee record (`fee_asset_id`/`fee_mode` null, no `feeToken`). */
  feesInactive?: boolean
  /** Withdraw records written before vault payouts were activated: `vault_address` null. */
  vaultPayoutsInactive?: boolean
}

/** The six envelope-level execution failures (trading-api §7). */
export type EnvelopeFailureCode = 'BadNonce' | 'BadSignature' | 'ExpiredTx' | 'MalformedTx' | 'InvalidBatchLength' | 'FeatureDisabled'
export const ENVELOPE_FAILURE_CODES: readonly EnvelopeFailureCode[] = [
  'BadNonce',
  'BadSignature',
  'ExpiredTx',
  'MalformedTx',
  'InvalidBatchLength',
  'FeatureDisabled',
]

// ---------- configuration records ----------

export interface AssetConfig {
  asset_id: number
  symbol: string
  balance_decimals: number
  withdraw_fee_atoms: bigint
  credit_ltv: number
  /** minimum order notional when this asset is a quote asset (atoms); absent = not a quote asset */
  min_quote_notional_atoms?: bigint
  /** minimum withdraw amount per destination chain (atoms) */
  min_withdraw_atoms?: bigint
}

export interface MarketConfig {
  market_id: number
  base_asset_id: number
  quote_asset_id: number
  price_decimals: number
  max_price_sig_figs: number
  base_quantity_decimals: number
  maker_fee_milli_bps: number
  taker_fee_milli_bps: number
  credit_trading: boolean
}

/** One executed (block-included) transaction, for tests and the scenario's ground truth. */
export interface GroundTruthTx {
  txHash: Hex
  height: number
  txIndex: number
  authority: Address
  owner: Address
  actionType: string
  nonce: string
  cloid: string | null
  /** `success`, or the lowercase execution error code */
  status: string
}

export interface TradingServiceOptions {
  chainId: number
  /** block cadence; default 100 ms. 0 = manual, blocks only via produceBlock(). */
  blockMs?: number
  /** per-IP /info and /trade token buckets and per-signer sliding window; false disables all */
  rateLimits?: { infoPerSec: number; tradePerSec: number; signerPerSec: number } | false
  /** wall clock (ms); default Date.now */
  now?: () => number
  /** random source for fault probabilities; default Math.random */
  random?: () => number
  /** admitted-but-unexecuted writes before `TooManyPending`; default 5000 */
  maxPending?: number
  /** /trade wait budget; default 3000 ms */
  waitBudgetMs?: number
  /** informational: the host persists via snapshot()/restore() */
  dataDir?: string
  /** seed default assets/markets (USDC, USDT, BTC, ETH; BTC/USDC, ETH/USDC); default true */
  seedDefaults?: boolean
}

export interface TradingService {
  readonly chainId: number
  readonly faults: TradingFaults

  /** POST /info. `body` may be the raw request text (preferred: size cap and JSON errors handled here) or a parsed value. */
  handleInfo(body: unknown, ip: string): Promise<HttpResult>
  /** POST /trade. Always answers; headers always include `x-trace-id`. */
  handleTrade(rawBody: string, headers: Record<string, string | undefined>, ip: string): Promise<HttpResult>

  onBlock(listener: (b: BlockEvents) => void): () => void

  // ---- snapshot queries for the WebSocket channels ----
  marketExists(marketId: string): boolean
  l2Book(marketId: string, depth?: number): WsL2Book | null
  bbo(marketId: string): WsBbo | null
  allMids(): WsAllMids
  openOrders(user: Address): WsOpenOrders
  spotState(user: Address): WsSpotState
  spotCreditState(user: Address): WsSpotCreditState
  /** the most recent `n` (default 100) fills of an owner, oldest first */
  recentFills(user: Address, n?: number): WsFill[]
  /** current head */
  head(): { height: number; timeMs: number }
  /** current marks, by asset id */
  marks(): { assetId: number; usdAtoms: bigint; sourceTsMs: number }[]
  /** what `oracleStatus` reports now (admin override, else `StalePrice` when a mark is stale) */
  oracleStatus(): { status: 'available' } | { status: 'unavailable'; reason_code: OracleReasonCode }

  // ---- seeding and admin ----
  /** Faucet. The first deposit of an address creates its account and pays the 1.0 activation fee. */
  deposit(address: Address, assetId: number, atoms: bigint): void
  createCreditAccount(address: Address, creditUsdAtoms: bigint, opts?: { whitelistedMarketIds?: string[] }): void
  setCreditPosition(address: Address, assetId: number, actualQty: bigint): void
  setMark(assetId: number, usdAtoms: bigint, sourceTsMs?: number): void
  setOracle(status: { status: 'available' } | { status: 'unavailable'; reason_code: OracleReasonCode }): void
  freeze(address: Address): void
  unfreeze(address: Address): void
  listAssets(): AssetConfig[]
  addAsset(asset: AssetConfig): void
  listMarkets(): MarketConfig[]
  addMarket(market: MarketConfig): void
  /** available/locked of an address per asset (atoms) */
  balances(address: Address): { assetId: number; available: bigint; locked: bigint }[]
  groundTruth(): GroundTruthTx[]
  /** Address credited with activation fees. */
  readonly feeAccount: Address

  /** Plain-data state (bigints kept) for a data directory; restore() takes it back before start(). */
  snapshot(): unknown
  restore(snapshot: unknown): void
  /** Admitted transactions waiting for the next block. */
  pendingCount(): number
  /** Seal the pending queue into the next block now (manual mode and tests). */
  produceBlock(): BlockEvents
  /**
   * Seals the pending queue into the next block, then skips `count - 1` empty heights at once
   * (block time unchanged) and prunes what left the retained window. Returns the new head.
   */
  advanceBlocks(count: number): { height: number; timeMs: number }
  start(): void
  stop(): Promise<void>
}
