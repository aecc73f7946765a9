/**
 * Seeding and admin operations of the trading service: the faucet, credit accounts and positions,
 * marks and the oracle, freezes, assets and markets, and ground truth for tests and scenarios.
 */
import type { Address } from 'viem'
import { SandboxError } from '../errors'
import type { BlockProducer } from './block-producer'
import { ACTIVATION_FEE_ASSETS, ACTIVATION_FEE_ATOMS } from './defaults'
import type { ServiceCore } from './service-core'
import type { Account, ChainState } from './state'
import type { AssetConfig, MarketConfig, TradingService } from './types'

export type AdminOps = Pick<
  TradingService,
  | 'deposit'
  | 'createCreditAccount'
  | 'setCreditPosition'
  | 'setMark'
  | 'setOracle'
  | 'freeze'
  | 'unfreeze'
  | 'listAssets'
  | 'addAsset'
  | 'listMarkets'
  | 'addMarket'
  | 'balances'
  | 'groundTruth'
>

export function addMarket(state: ChainState, m: MarketConfig): void {
  const base = state.assets.get(m.base_asset_id)
  const quote = state.assets.get(m.quote_asset_id)
  if (!base || !quote) throw new SandboxError('InvalidMarket', `market ${m.market_id} refers to an unknown asset`)
  // Integer-exact settlement: notional and base atoms must never need rounding.
  if (m.price_decimals + m.base_quantity_decimals > quote.balance_decimals || m.base_quantity_decimals > base.balance_decimals) {
    throw new SandboxError('InvalidMarket', `market ${m.market_id}: price and quantity decimals exceed the asset decimals`)
  }
  state.addMarket(m)
}

function existingAccount(state: ChainState, address: Address): Account {
  const acct = state.accounts.get(address.toLowerCase() as Address)
  if (!acct) throw new SandboxError('AccountNotFound', `${address} has no account`)
  return acct
}

function creditAccount(state: ChainState, address: Address): Account {
  const acct = state.accounts.get(address.toLowerCase() as Address)
  if (!acct || acct.kind !== 'credit') throw new SandboxError('InvalidMarginAccount', `${address} is not a credit account`)
  return acct
}

export function createAdminOps(core: ServiceCore, blocks: BlockProducer): AdminOps {
  const { state, now, feeAccount } = core

  /** The first deposit of an address creates its account and pays the activation fee. */
  function deposit(address: Address, assetId: number, atoms: bigint): void {
    const a = address.toLowerCase() as Address
    if (!state.assets.has(assetId)) throw new SandboxError('InvalidAssetId', `unknown asset ${assetId}`)
    if (atoms <= 0n) throw new SandboxError('InvalidAmount', 'deposit must be positive')
    let acct = state.accounts.get(a)
    let fee = 0n
    if (!acct) {
      if (state.agentIndex.has(a)) throw new SandboxError('AddressIsAgent', `${a} is an active agent and cannot hold an account`)
      if (!ACTIVATION_FEE_ASSETS.includes(assetId) || atoms <= ACTIVATION_FEE_ATOMS) {
        throw new SandboxError(
          'InsufficientActivationDeposit',
          `a first deposit must be in asset ${ACTIVATION_FEE_ASSETS.join(' or ')} and exceed the 1.0 activation fee`,
        )
      }
      acct = state.createAccount(a, 'balance')
      fee = ACTIVATION_FEE_ATOMS
      state.balance(state.accounts.get(feeAccount)!, assetId).available += fee
    }
    if (acct.kind === 'credit') throw new SandboxError('ActionNotAllowedForSpotCreditAccount', 'credit accounts hold no balances')
    state.balance(acct, assetId).available += atoms - fee
    let list = state.deposits.get(a)
    if (!list) {
      list = []
      state.deposits.set(a, list)
    }
    list.push({
      deposit_id: state.nextDepositId++,
      asset_id: assetId,
      amount_atoms: atoms,
      fee_atoms: fee,
      src_chain_id: 1,
      block_height: state.height,
      time_ms: state.timeMs || now(),
    })
    blocks.depositedSinceLastBlock.add(a)
  }

  return {
    deposit,
    createCreditAccount(address, creditUsdAtoms, o) {
      const a = address.toLowerCase() as Address
      if (state.accounts.has(a)) throw new SandboxError('AccountAlreadyActivated', `${a} already has an account`)
      const acct = state.createAccount(a, 'credit')
      acct.credit!.creditUsdAtoms = creditUsdAtoms
      acct.credit!.whitelist = [...(o?.whitelistedMarketIds ?? [])]
    },
    setCreditPosition(address, assetId, actualQty) {
      creditAccount(state, address).credit!.positions.set(assetId, actualQty)
    },
    setMark(assetId, usdAtoms, sourceTsMs) {
      if (usdAtoms <= 0n) throw new SandboxError('InvalidPrice', 'a mark must be positive')
      state.marks.set(assetId, { usdAtoms, sourceTsMs: sourceTsMs ?? now() })
    },
    setOracle(s) {
      state.oracle = s
    },
    freeze(address) {
      existingAccount(state, address).status = 'frozen'
    },
    unfreeze(address) {
      existingAccount(state, address).status = 'active'
    },
    listAssets: () => [...state.assets.values()].sort((a, b) => a.asset_id - b.asset_id),
    addAsset(a: AssetConfig) {
      state.addAsset(a)
    },
    listMarkets: () => [...state.markets.values()].sort((a, b) => a.market_id - b.market_id),
    addMarket: (m) => addMarket(state, m),
    balances(address) {
      const acct = state.accounts.get(address.toLowerCase() as Address)
      return acct
        ? [...acct.balances].sort((x, y) => x[0] - y[0]).map(([assetId, b]) => ({ assetId, available: b.available, locked: b.locked }))
        : []
    },
    groundTruth: () =>
      state.executed.map((t) => ({
        txHash: t.txHash,
        height: t.height,
        txIndex: t.txIndex,
        authority: t.authority,
        owner: t.owner,
        actionType: t.actionType,
        nonce: t.nonce,
        cloid: t.cloids[0] ?? null,
        status: t.status,
      })),
  }
}
