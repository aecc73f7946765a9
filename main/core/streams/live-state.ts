import type { CreditPosition } from '../exchange/info/types/spot-credit-positions'
import type { StreamFill } from './fills'

/** Live state of one account as the pool keeps it; amounts are the service's display strings. */
export interface LiveBalance {
  assetId: number
  coin: string | null
  /** available + locked; null when only the parts are known */
  total: string | null
  locked: string
  /** null when only total and hold are known (socket frames) */
  available: string | null
}

export interface LiveCredit {
  /** false: the address has no credit line */
  authorized: boolean
  status: 'active' | 'frozen' | null
  creditUsdAtoms: bigint | null
  positions: CreditPosition[]
}

export interface LiveOrder {
  marketId: string | null
  oid: bigint
  cloid: string | null
  side: string | null
  price: string | null
  origSz: string
  /** remaining quantity */
  sz: string
  timestamp: number | null
}

export interface LiveAccountState {
  user: string
  balances: { value: LiveBalance[]; at: number } | null
  credit: { value: LiveCredit; at: number } | null
  openOrders: { value: LiveOrder[]; at: number; truncated: boolean } | null
}

/** What consumers receive, coalesced per (kind, user). */
export type StateUpdate =
  | { kind: 'balances'; user: string; at: number; value: LiveBalance[] }
  | { kind: 'credit'; user: string; at: number; value: LiveCredit }
  | { kind: 'openOrders'; user: string; at: number; value: LiveOrder[] }
  | { kind: 'fills'; user: string; at: number; value: StreamFill[] }
