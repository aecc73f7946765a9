import type { AssetConfig, MarketConfig } from './types'

/**
 * The sandbox's default listing: two 8-decimal quote assets (ids 1 and 2, the activation-fee
 * assets), BTC and ETH, and two USDC markets. Scenarios can add more with addAsset/addMarket.
 */
export const DEFAULT_ASSETS: AssetConfig[] = [
  {
    asset_id: 1,
    symbol: 'USDC',
    balance_decimals: 8,
    withdraw_fee_atoms: 100_000_000n,
    credit_ltv: 100,
    min_quote_notional_atoms: 1_000_000_000n,
    min_withdraw_atoms: 200_000_000n,
  },
  {
    asset_id: 2,
    symbol: 'USDT',
    balance_decimals: 8,
    withdraw_fee_atoms: 100_000_000n,
    credit_ltv: 95,
    min_quote_notional_atoms: 1_000_000_000n,
    min_withdraw_atoms: 200_000_000n,
  },
  { asset_id: 3, symbol: 'BTC', balance_decimals: 8, withdraw_fee_atoms: 2_000n, credit_ltv: 80, min_withdraw_atoms: 10_000n },
  { asset_id: 4, symbol: 'ETH', balance_decimals: 8, withdraw_fee_atoms: 50_000n, credit_ltv: 75, min_withdraw_atoms: 200_000n },
]

export const DEFAULT_MARKETS: MarketConfig[] = [
  {
    market_id: 1,
    base_asset_id: 3,
    quote_asset_id: 1,
    price_decimals: 2,
    max_price_sig_figs: 6,
    base_quantity_decimals: 5,
    maker_fee_milli_bps: 1_000,
    taker_fee_milli_bps: 3_500,
    credit_trading: true,
  },
  {
    market_id: 2,
    base_asset_id: 4,
    quote_asset_id: 1,
    price_decimals: 2,
    max_price_sig_figs: 6,
    base_quantity_decimals: 4,
    maker_fee_milli_bps: 1_000,
    taker_fee_milli_bps: 3_500,
    credit_trading: false,
  },
]

/** Marks (usd_atoms per whole unit, scale 1e8) seeded with the defaults. */
export const DEFAULT_MARKS: { assetId: number; usdAtoms: bigint }[] = [
  { assetId: 1, usdAtoms: 100_000_000n },
  { assetId: 2, usdAtoms: 99_980_000n },
  { assetId: 3, usdAtoms: 6_500_000_000_000n },
  { assetId: 4, usdAtoms: 320_000_000_000n },
]

/** Destination chains a withdraw may target (rows of accountingWithdrawTokens) per asset. */
export const WITHDRAW_CHAINS = [1, 42161]

/** Deposit contracts listed by accountingDepositContracts. */
export const DEPOSIT_CONTRACTS = [
  { src_chain_id: 1, contract_address: '0x00000000000000000000000000000000000d0001', asset_ids: [1, 2, 3, 4] },
  { src_chain_id: 42161, contract_address: '0x00000000000000000000000000000000000d0002', asset_ids: [1, 2] },
]

/** Protocol fee account: receives activation fees and trading fees. */
export const FEE_ACCOUNT = '0x00000000000000000000000000000000000fee01' as const

/** Vault that pays out withdrawals (recorded on withdraw records). */
export const WITHDRAW_VAULT = '0x0000000000000000000000000000000000a0a001' as const

/** Activation fee: exactly 1.0 unit of an 8-decimal asset. */
export const ACTIVATION_FEE_ATOMS = 100_000_000n
export const ACTIVATION_FEE_ASSETS = [1, 2]

/** A mark older than this, against the block time, is stale. */
export { MARK_STALE_AFTER_MS as MARK_STALE_MS } from '../../main/core/wire/assumptions'

/** Retained recent window, in blocks. */
export const RETAINED_BLOCKS = 10_000
