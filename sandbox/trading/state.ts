import type { Address, Hex } from 'viem'
import { OrderBook, type Order } from './book'
import type { AssetConfig, MarketConfig, OracleReasonCode } from './types'

/** Everything the sandbox chain holds. Mutated only by block execution and admin seeding. */

export interface Balance {
  available: bigint
  locked: bigint
}

export interface AgentSlot {
  agent: Address
  epoch: bigint
}

export interface CreditLine {
  creditUsdAtoms: bigint
  /** settled signed positions per asset (atoms); negative is short */
  positions: Map<number, bigint>
  whitelist: string[]
}

export interface Account {
  address: Address
  index: number
  kind: 'balance' | 'credit'
  status: 'active' | 'frozen'
  balances: Map<number, Balance>
  credit: CreditLine | null
  agents: (AgentSlot | null)[]
  /** bumped on every approve and revoke; a new approval takes the bumped value */
  epochCounter: bigint
}

export interface Mark {
  usdAtoms: bigint
  sourceTsMs: number
}

export interface FillRecord {
  tid: number
  height: number
  timeMs: number
  user: Address
  marketId: number
  price: bigint
  qty: bigint
  side: 'B' | 'A'
  crossed: boolean
  oid: number
  cloid: string | null
  fee: bigint
  /** null on a no-fee fill before fee activation */
  feeAssetId: number | null
  feeMode: 'balance' | 'credit' | null
}

export type OrderStatusString =
  | 'open'
  | 'partiallyfilledresting'
  | 'filled'
  | 'cancelled'
  | 'ioccancel'
  | 'fokcancel'
  | 'badalopx'
  | 'marketordernoliquidity'
  | 'insufficientspotcredit'
  | 'selftradepreventioncancel'
  | 'maxfillsexceeded'

export interface OrderStatusRecord {
  order: Order
  status: OrderStatusString
  height: number
  timeMs: number
}

export interface TxRecord {
  txHash: Hex
  height: number
  txIndex: number
  authority: Address
  owner: Address
  actionType: string
  nonce: string
  cloids: string[]
  /** `success` or the lowercase committed execution error code */
  status: string
}

export interface WithdrawRecord {
  user: Address
  asset_id: number
  amount_atoms: bigint
  dst_chain_id: string
  dst_address: Address
  withdraw_nonce: bigint
  withdraw_fee_atoms: bigint
  vault_address: Address | null
  cloid: string
  tx_hash: Hex
  block_height: number
  tx_index: number
  time_ms: number
}

export interface DepositRecord {
  asset_id: number
  amount_atoms: bigint
  fee_atoms: bigint
  src_chain_id: number
  block_height: number
  time_ms: number
  deposit_id: number
}

export class ChainState {
  readonly assets = new Map<number, AssetConfig>()
  readonly markets = new Map<number, MarketConfig>()
  readonly books = new Map<number, OrderBook>()
  readonly accounts = new Map<Address, Account>()
  /** active agent address -> owner and slot */
  readonly agentIndex = new Map<Address, { owner: Address; slot: number }>()
  readonly marks = new Map<number, Mark>()
  oracle: { status: 'available' } | { status: 'unavailable'; reason_code: OracleReasonCode } = { status: 'available' }
  /** latest consumed envelope nonces per authority, ascending, at most 100 */
  readonly nonces = new Map<Address, bigint[]>()
  /** withdraw business nonces per owner: retained nonce -> block time; floor = highest pruned */
  readonly withdrawNonces = new Map<Address, { retained: Map<bigint, number>; floor: bigint }>()
  /** per owner, oldest first, at most 10000 */
  readonly fills = new Map<Address, FillRecord[]>()
  readonly openByOwner = new Map<Address, Map<number, Order>>()
  readonly statusByOid = new Map<number, OrderStatusRecord>()
  /** `${owner}:${marketId}:${cloid}` -> latest oid */
  readonly oidByCloid = new Map<string, number>()
  /** `${authority}:${cloid}` -> latest transaction */
  readonly txByCloid = new Map<string, TxRecord>()
  readonly executed: TxRecord[] = []
  readonly withdraws = new Map<Address, WithdrawRecord[]>()
  readonly deposits = new Map<Address, DepositRecord[]>()
  height = 0
  timeMs = 0
  appHash: Hex = `0x${'00'.repeat(32)}`
  nextOid = 1
  nextTid = 1
  nextAccountIndex = 1
  nextDepositId = 1

  addAsset(a: AssetConfig): void {
    this.assets.set(a.asset_id, a)
  }

  addMarket(m: MarketConfig): void {
    this.markets.set(m.market_id, m)
    if (!this.books.has(m.market_id)) this.books.set(m.market_id, new OrderBook())
  }

  createAccount(address: Address, kind: 'balance' | 'credit'): Account {
    const acct: Account = {
      address,
      index: this.nextAccountIndex++,
      kind,
      status: 'active',
      balances: new Map(),
      credit: kind === 'credit' ? { creditUsdAtoms: 0n, positions: new Map(), whitelist: [] } : null,
      agents: [null, null, null, null],
      epochCounter: 0n,
    }
    this.accounts.set(address, acct)
    return acct
  }

  balance(acct: Account, assetId: number): Balance {
    let b = acct.balances.get(assetId)
    if (!b) {
      b = { available: 0n, locked: 0n }
      acct.balances.set(assetId, b)
    }
    return b
  }

  openOrdersOf(owner: Address): Map<number, Order> {
    let m = this.openByOwner.get(owner)
    if (!m) {
      m = new Map()
      this.openByOwner.set(owner, m)
    }
    return m
  }

  /** The lowest retained height of the recent window. */
  earliestRetainedHeight(retained: number): number {
    return Math.max(1, this.height - retained + 1)
  }
}
