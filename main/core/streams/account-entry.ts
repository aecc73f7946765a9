import type { LiveAccountState } from './live-state'

export type SnapshotKind = 'balances' | 'credit' | 'openOrders'

/** Per-account bookkeeping beside the public state. */
export interface Entry {
  state: LiveAccountState
  topics: { balances: string; credit: string; openOrders: string; fills: string }
  /** New fills seen so far (any source): a state change with no new fill since the last one hints at a lost frame. */
  fillSeq: number
  fillSeqAtBalances: number
  fillSeqAtCredit: number
  fillSeqAtOrders: number
  /** Latest frame text per snapshot kind, for `skipRepeat`. */
  texts: Partial<Record<SnapshotKind, string>>
  /** oid -> when a cancel of it was accepted (see `dropOrders`) */
  cancelled: Map<bigint, number>
  /** Whether the balances held came from a frame (not /info) */
  balancesFromStream: boolean
  /** When the latest openOrders frame arrived (repeats included) */
  ordersFrameAt: number
  /** When balances, credit state or open orders last changed in substance (any source; the first value is not a change) */
  changedAt: number
}

/** A new entry for lowercase `k`: nothing known yet. */
export function newEntry(k: string): Entry {
  return {
    state: { user: k, balances: null, credit: null, openOrders: null },
    topics: { balances: `balances:${k}`, credit: `credit:${k}`, openOrders: `openOrders:${k}`, fills: `fills:${k}` },
    fillSeq: 0,
    fillSeqAtBalances: 0,
    fillSeqAtCredit: 0,
    fillSeqAtOrders: 0,
    texts: {},
    cancelled: new Map(),
    ordersFrameAt: -Infinity,
    changedAt: -Infinity,
    balancesFromStream: false,
  }
}
