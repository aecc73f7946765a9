import type { Address, Hex } from 'viem'
import { SandboxError } from '../errors'
import { OrderBook, type Order } from './book'
import type { Account, ChainState, DepositRecord, FillRecord, OrderStatusString, TxRecord, WithdrawRecord } from './state'
import type { AssetConfig, MarketConfig } from './types'

/**
 * Plain-data snapshot of the chain state, so a sandbox started with a data directory comes
 * back where it stopped. Bigints stay bigints (the caller's JSON writer encodes them);
 * restore also accepts them as decimal strings, with or without a trailing `n`.
 */

export const SNAPSHOT_VERSION = 1
const MAX_EXECUTED_KEPT = 20_000

function big(x: unknown, field: string): bigint {
  if (typeof x === 'bigint') return x
  if (typeof x === 'number' && Number.isSafeInteger(x)) return BigInt(x)
  if (typeof x === 'string' && /^-?\d+n?$/.test(x)) return BigInt(x.replace(/n$/, ''))
  throw new SandboxError('InvalidSnapshot', `trading snapshot field ${field} is not an integer`)
}

type Snap = {
  version: number
  height: number
  timeMs: number
  appHash: Hex
  nextOid: number
  nextTid: number
  nextAccountIndex: number
  nextDepositId: number
  assets: AssetConfig[]
  markets: MarketConfig[]
  accounts: {
    address: Address
    index: number
    kind: 'balance' | 'credit'
    status: 'active' | 'frozen'
    balances: [number, bigint, bigint][]
    credit: { creditUsdAtoms: bigint; positions: [number, bigint][]; whitelist: string[] } | null
    agents: ({ agent: Address; epoch: bigint } | null)[]
    epochCounter: bigint
  }[]
  marks: [number, bigint, number][]
  oracle: ChainState['oracle']
  nonces: [Address, bigint[]][]
  withdrawNonces: [Address, [bigint, number][], bigint][]
  fills: [Address, FillRecord[]][]
  orders: Order[]
  books: [number, number[], number[], number, number][]
  statuses: [number, OrderStatusString, number, number][]
  oidByCloid: [string, number][]
  txByCloid: [string, TxRecord][]
  executed: TxRecord[]
  withdraws: [Address, WithdrawRecord[]][]
  deposits: [Address, DepositRecord[]][]
}

export function snapshotState(s: ChainState): Snap {
  const orders = new Map<number, Order>()
  const books: Snap['books'] = []
  for (const [id, book] of s.books) {
    const side = (which: 'bid' | 'ask') => book.side(which).levels.flatMap((l) => l.orders.map((o) => (orders.set(o.oid, o), o.oid)))
    books.push([id, side('bid'), side('ask'), book.lastUpdateHeight, book.lastUpdateMs])
  }
  const statuses: Snap['statuses'] = []
  for (const [oid, r] of s.statusByOid) {
    orders.set(oid, r.order)
    statuses.push([oid, r.status, r.height, r.timeMs])
  }
  return {
    version: SNAPSHOT_VERSION,
    height: s.height,
    timeMs: s.timeMs,
    appHash: s.appHash,
    nextOid: s.nextOid,
    nextTid: s.nextTid,
    nextAccountIndex: s.nextAccountIndex,
    nextDepositId: s.nextDepositId,
    assets: [...s.assets.values()],
    markets: [...s.markets.values()],
    accounts: [...s.accounts.values()].map((a) => ({
      address: a.address,
      index: a.index,
      kind: a.kind,
      status: a.status,
      balances: [...a.balances].map(([id, b]) => [id, b.available, b.locked] as [number, bigint, bigint]),
      credit: a.credit
        ? { creditUsdAtoms: a.credit.creditUsdAtoms, positions: [...a.credit.positions], whitelist: [...a.credit.whitelist] }
        : null,
      agents: a.agents.map((x) => (x ? { ...x } : null)),
      epochCounter: a.epochCounter,
    })),
    marks: [...s.marks].map(([id, m]) => [id, m.usdAtoms, m.sourceTsMs]),
    oracle: s.oracle,
    nonces: [...s.nonces].map(([a, l]) => [a, [...l]]),
    withdrawNonces: [...s.withdrawNonces].map(([a, w]) => [a, [...w.retained], w.floor]),
    fills: [...s.fills],
    orders: [...orders.values()],
    books,
    statuses,
    oidByCloid: [...s.oidByCloid],
    txByCloid: [...s.txByCloid],
    executed: s.executed.slice(-MAX_EXECUTED_KEPT),
    withdraws: [...s.withdraws],
    deposits: [...s.deposits],
  }
}

function clear(s: ChainState): void {
  for (const m of [
    s.assets,
    s.markets,
    s.books,
    s.accounts,
    s.agentIndex,
    s.marks,
    s.nonces,
    s.withdrawNonces,
    s.fills,
    s.openByOwner,
    s.statusByOid,
    s.oidByCloid,
    s.txByCloid,
    s.withdraws,
    s.deposits,
  ]) {
    ;(m as Map<unknown, unknown>).clear()
  }
  s.executed.length = 0
}

export function restoreState(s: ChainState, raw: unknown): void {
  const snap = raw as Snap
  if (typeof snap !== 'object' || snap === null || snap.version !== SNAPSHOT_VERSION) {
    throw new SandboxError('InvalidSnapshot', `trading snapshot version must be ${SNAPSHOT_VERSION}`)
  }
  clear(s)
  s.height = snap.height
  s.timeMs = snap.timeMs
  s.appHash = snap.appHash
  s.nextOid = snap.nextOid
  s.nextTid = snap.nextTid
  s.nextAccountIndex = snap.nextAccountIndex
  s.nextDepositId = snap.nextDepositId
  for (const a of snap.assets) {
    const asset: AssetConfig = { ...a, withdraw_fee_atoms: big(a.withdraw_fee_atoms, 'withdraw_fee_atoms') }
    if (a.min_quote_notional_atoms !== undefined)
      asset.min_quote_notional_atoms = big(a.min_quote_notional_atoms, 'min_quote_notional_atoms')
    if (a.min_withdraw_atoms !== undefined) asset.min_withdraw_atoms = big(a.min_withdraw_atoms, 'min_withdraw_atoms')
    s.assets.set(asset.asset_id, asset)
  }
  for (const m of snap.markets) {
    s.markets.set(m.market_id, m)
    s.books.set(m.market_id, new OrderBook())
  }
  for (const a of snap.accounts) {
    const acct: Account = {
      address: a.address,
      index: a.index,
      kind: a.kind,
      status: a.status,
      balances: new Map(a.balances.map(([id, av, lk]) => [id, { available: big(av, 'available'), locked: big(lk, 'locked') }])),
      credit: a.credit
        ? {
            creditUsdAtoms: big(a.credit.creditUsdAtoms, 'creditUsdAtoms'),
            positions: new Map(a.credit.positions.map(([id, q]) => [id, big(q, 'position')])),
            whitelist: [...a.credit.whitelist],
          }
        : null,
      agents: a.agents.map((x) => (x ? { agent: x.agent, epoch: big(x.epoch, 'epoch') } : null)),
      epochCounter: big(a.epochCounter, 'epochCounter'),
    }
    s.accounts.set(acct.address, acct)
    acct.agents.forEach((slot, i) => {
      if (slot) s.agentIndex.set(slot.agent, { owner: acct.address, slot: i })
    })
  }
  for (const [id, usd, ts] of snap.marks) s.marks.set(id, { usdAtoms: big(usd, 'mark'), sourceTsMs: ts })
  s.oracle = snap.oracle
  for (const [a, l] of snap.nonces)
    s.nonces.set(
      a,
      l.map((n) => big(n, 'nonce')),
    )
  for (const [a, retained, floor] of snap.withdrawNonces) {
    s.withdrawNonces.set(a, { retained: new Map(retained.map(([n, t]) => [big(n, 'withdraw_nonce'), t])), floor: big(floor, 'floor') })
  }
  for (const [a, list] of snap.fills) {
    s.fills.set(
      a,
      list.map((f) => ({ ...f, price: big(f.price, 'price'), qty: big(f.qty, 'qty'), fee: big(f.fee, 'fee') })),
    )
  }
  const orders = new Map<number, Order>()
  for (const o of snap.orders) {
    orders.set(o.oid, {
      ...o,
      price: big(o.price, 'price'),
      origQty: big(o.origQty, 'origQty'),
      remaining: big(o.remaining, 'remaining'),
      filled: big(o.filled, 'filled'),
      sumPriceQty: big(o.sumPriceQty, 'sumPriceQty'),
    })
  }
  for (const [id, bids, asks, h, t] of snap.books) {
    const book = s.books.get(id)
    if (!book) continue
    for (const oid of [...bids, ...asks]) {
      const o = orders.get(oid)
      if (!o) continue
      book.add(o)
      s.openOrdersOf(o.owner).set(o.oid, o)
    }
    book.lastUpdateHeight = h
    book.lastUpdateMs = t
  }
  for (const [oid, status, height, timeMs] of snap.statuses) {
    const o = orders.get(oid)
    if (o) s.statusByOid.set(oid, { order: o, status, height, timeMs })
  }
  for (const [k, oid] of snap.oidByCloid) s.oidByCloid.set(k, oid)
  for (const [k, tx] of snap.txByCloid) s.txByCloid.set(k, tx)
  s.executed.push(...snap.executed)
  for (const [a, list] of snap.withdraws) {
    s.withdraws.set(
      a,
      list.map((w) => ({
        ...w,
        amount_atoms: big(w.amount_atoms, 'amount'),
        withdraw_nonce: big(w.withdraw_nonce, 'withdraw_nonce'),
        withdraw_fee_atoms: big(w.withdraw_fee_atoms, 'fee'),
      })),
    )
  }
  for (const [a, list] of snap.deposits)
    s.deposits.set(
      a,
      list.map((d) => ({ ...d, amount_atoms: big(d.amount_atoms, 'amount'), fee_atoms: big(d.fee_atoms, 'fee') })),
    )
}
