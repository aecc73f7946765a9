/**
 * Static settings of the sandbox earn pool: assets, addresses, domain, timings.
 * Everything the spec leaves "not shown" that is a number lives here, with its default.
 */
import { CHAIN_IDS } from '../../main/core/wire/chains'
import type { EarnDomain } from '../../main/core/wire/earn'

export interface EarnAssetSettings {
  asset_id: number
  symbol: string
  deposit_enabled: boolean
  scheduled_withdraw_enabled: boolean
  instant_withdraw_enabled: boolean
  instant_fee_bps: number
  /** gross atoms; 0n = no minimum */
  min_withdraw_amount: bigint
  /** gross atoms; 0n = no maximum */
  max_single_withdraw_amount: bigint
  /** yield rate in basis points per year; null = `projected_apy` omitted and no yield paid */
  apy_bps: number | null
}

export interface EarnPoolSettings {
  chainId: number
  vaultAddress: string
  feeWalletAddress: string
  domain: EarnDomain
  assets: EarnAssetSettings[]
  /** scheduled wait before claiming; also the cancel window */
  pendingSeconds: number
  /** time each payout stage (authorizing, authorized, transferring) takes */
  payoutStageMs: number
  /** period of the "daily-style" yield distribution, shortened for a sandbox */
  yieldPeriodMs: number
  /** catch-up bound after downtime: older missed distributions are skipped */
  maxCatchUpDistributions: number
}

/** the sandbox signs with the trading service's sandbox chain id (the pool's `native_chain_id`) */
export const SANDBOX_CHAIN_ID = CHAIN_IDS.sandbox
export const SANDBOX_VAULT_ADDRESS = '0x5a4d0000000000000000000000000000000e4a11'
export const SANDBOX_FEE_WALLET_ADDRESS = '0x5a4d00000000000000000000000000000000fee5'

export function defaultEarnSettings(overrides: Partial<EarnPoolSettings> = {}): EarnPoolSettings {
  const vault = overrides.vaultAddress ?? SANDBOX_VAULT_ADDRESS
  return {
    chainId: SANDBOX_CHAIN_ID,
    vaultAddress: vault,
    feeWalletAddress: SANDBOX_FEE_WALLET_ADDRESS,
    domain: { name: 'TreasuryDeskSandboxEarn', version: '1', verifyingContract: vault },
    assets: [
      {
        asset_id: 1,
        symbol: 'USDC',
        deposit_enabled: true,
        scheduled_withdraw_enabled: true,
        instant_withdraw_enabled: true,
        instant_fee_bps: 30,
        min_withdraw_amount: 100_000_000n, // 1.0
        max_single_withdraw_amount: 1_000_000_000_000_000n, // 10,000,000.0
        apy_bps: 650,
      },
      {
        asset_id: 2,
        symbol: 'USDT',
        deposit_enabled: true,
        scheduled_withdraw_enabled: true,
        instant_withdraw_enabled: false,
        instant_fee_bps: 50,
        min_withdraw_amount: 0n,
        max_single_withdraw_amount: 0n,
        apy_bps: null,
      },
    ],
    pendingSeconds: 120,
    payoutStageMs: 1000,
    yieldPeriodMs: 60_000,
    maxCatchUpDistributions: 100,
    ...overrides,
  }
}

export const BALANCE_DECIMALS = 8
