import type { Address } from 'viem'

/** A resting (or incoming) order, integer-only. Prices in price atoms, sizes in base-quantity atoms. */
export interface Order {
  oid: number
  owner: Address
  ownerIndex: number
  marketId: number
  side: 'bid' | 'ask'
  price: bigint
  origQty: bigint
  remaining: bigint
  filled: bigint
  /** sum of fill price * fill qty, for avg_px */
  sumPriceQty: bigint
  cloid: string | null
  tif: 'gtc' | 'ioc' | 'fok' | 'alo'
  orderType: 'limit' | 'market'
  timestampMs: number
  fills: number
}

interface Level {
  price: bigint
  orders: Order[]
}

/** One side of a book: levels kept sorted best-first, FIFO within a level. */
class BookSide {
  readonly levels: Level[] = []
  constructor(private readonly better: (a: bigint, b: bigint) => boolean) {}

  private find(price: bigint): { index: number; found: boolean } {
    let lo = 0
    let hi = this.levels.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      const p = this.levels[mid]!.price
      if (p === price) return { index: mid, found: true }
      if (this.better(p, price)) lo = mid + 1
      else hi = mid
    }
    return { index: lo, found: false }
  }

  add(o: Order): void {
    const { index, found } = this.find(o.price)
    if (found) this.levels[index]!.orders.push(o)
    else this.levels.splice(index, 0, { price: o.price, orders: [o] })
  }

  remove(o: Order): boolean {
    const { index, found } = this.find(o.price)
    if (!found) return false
    const level = this.levels[index]!
    const i = level.orders.indexOf(o)
    if (i < 0) return false
    level.orders.splice(i, 1)
    if (level.orders.length === 0) this.levels.splice(index, 1)
    return true
  }

  /** Removes and returns the order's queue position within its level (for an atomic restore). */
  removeAt(o: Order): number {
    const { index, found } = this.find(o.price)
    if (!found) return -1
    const level = this.levels[index]!
    const i = level.orders.indexOf(o)
    if (i < 0) return -1
    level.orders.splice(i, 1)
    if (level.orders.length === 0) this.levels.splice(index, 1)
    return i
  }

  /** Puts an order back at its former queue position. */
  insertAt(o: Order, pos: number): void {
    const { index, found } = this.find(o.price)
    if (found) this.levels[index]!.orders.splice(pos, 0, o)
    else this.levels.splice(index, 0, { price: o.price, orders: [o] })
  }

  best(): Level | undefined {
    return this.levels[0]
  }

  /** Drops a fully consumed best level. */
  pruneBest(): void {
    const l = this.levels[0]
    if (l && l.orders.length === 0) this.levels.shift()
  }
}

export class OrderBook {
  readonly bids = new BookSide((a, b) => a > b)
  readonly asks = new BookSide((a, b) => a < b)
  readonly byOid = new Map<number, Order>()
  lastUpdateHeight = 0
  lastUpdateMs = 0

  side(s: 'bid' | 'ask'): BookSide {
    return s === 'bid' ? this.bids : this.asks
  }

  add(o: Order): void {
    this.side(o.side).add(o)
    this.byOid.set(o.oid, o)
  }

  remove(o: Order): void {
    this.side(o.side).remove(o)
    this.byOid.delete(o.oid)
  }

  /** Removes an order, returning what restore() needs to put it back in place. */
  take(o: Order): number {
    this.byOid.delete(o.oid)
    return this.side(o.side).removeAt(o)
  }

  restore(o: Order, pos: number): void {
    this.side(o.side).insertAt(o, pos)
    this.byOid.set(o.oid, o)
  }

  /** Aggregated levels best-first: [price, total remaining, order count]. */
  depth(s: 'bid' | 'ask', n: number): { price: bigint; qty: bigint; count: number }[] {
    const out: { price: bigint; qty: bigint; count: number }[] = []
    for (const l of this.side(s).levels) {
      if (out.length >= n) break
      let q = 0n
      for (const o of l.orders) q += o.remaining
      out.push({ price: l.price, qty: q, count: l.orders.length })
    }
    return out
  }

  /** Whether an incoming order at `price` on `side` would cross the opposite best. */
  crosses(side: 'bid' | 'ask', price: bigint): boolean {
    const best = this.side(side === 'bid' ? 'ask' : 'bid').best()
    if (!best) return false
    return side === 'bid' ? best.price <= price : best.price >= price
  }
}
