import { formatAtoms, parseDecimal } from '../../money/decimal'

/**
 * Realised PnL by FIFO lots, exact on bigints.
 *
 * Method (documented for the operator in `PNL_METHOD_NOTE`):
 * - The fills of one account in one market are replayed oldest first (ties by `tid`).
 * - A buy first closes open short lots (oldest first), the rest opens a long lot at the fill
 *   price; a sell first closes open long lots, the rest opens a short lot. A closing realises
 *   (sell price - buy price) x closed quantity.
 * - Every fill builds the lots, but only closings by fills inside [fromMs, toMs) are counted, so
 *   a range's figure uses the cost of lots opened before it.
 * - Values are kept at the exact scale of price x quantity (price decimals + quantity decimals,
 *   at least the quote asset's decimals): no rounding anywhere.
 * - Fees charged in the quote asset on fills inside the range are subtracted (realisedNet);
 *   fees in another asset (the base asset on a buy) are listed apart, never converted, and do
 *   not change the lots (the lots follow the traded quantity).
 * - A fill without the account's side (aged out of the service's window) is left out and counted.
 */
export const PNL_METHOD_NOTE =
  'FIFO lots over the fills the service returns (oldest first; a sell closes the oldest open buys, a buy closes the oldest open sells). ' +
  'Only closings by fills inside the range count; lots opened before it keep their cost. Exact decimals in the quote asset. ' +
  'Quote-asset fees are subtracted; fees in another asset are listed apart, not converted. ' +
  'Holdings acquired by deposit, transfer or before the oldest fill returned have no cost basis here.'

export interface PnlMarket {
  priceDecimals: number
  quantityDecimals: number
  quoteDecimals: number
  baseAssetId: number
  quoteAssetId: number
}

export interface PnlFill {
  tid: bigint
  timeMs: number
  side: 'B' | 'A' | null
  price: string
  quantity: string
  fee: string | null
  feeAssetId: number | null
}

export interface PnlResult {
  fills: number
  fillsInRange: number
  unknownSideFills: number
  /** all at `valueScale` decimals (quantities at `quantityDecimals`) */
  closedQtyAtoms: bigint
  realisedGross: bigint
  quoteFees: bigint
  realisedNet: bigint
  otherFees: Map<number, bigint>
  openQtyAtoms: bigint
  openCost: bigint
  valueScale: number
  historyFromMs: number | null
}

interface Lot {
  qty: bigint
  /** price atoms at priceDecimals */
  price: bigint
}

/** The decimals of a value (price x quantity) and the factor that brings quote atoms to it. */
export function valueScale(m: PnlMarket): number {
  return Math.max(m.priceDecimals + m.quantityDecimals, m.quoteDecimals)
}

export function realisedPnl(
  m: PnlMarket,
  fills: readonly PnlFill[],
  range: { fromMs?: number | undefined; toMs?: number | undefined },
  feeDecimals: (assetId: number) => number | null,
): PnlResult {
  const scale = valueScale(m)
  // price (pd) x qty (qd) is at pd+qd decimals; bring it to `scale`
  const up = 10n ** BigInt(scale - m.priceDecimals - m.quantityDecimals)
  const quoteUp = 10n ** BigInt(scale - m.quoteDecimals)
  const inRange = (t: number) => (range.fromMs === undefined || t >= range.fromMs) && (range.toMs === undefined || t < range.toMs)
  const sorted = [...fills].sort((a, b) => a.timeMs - b.timeMs || (a.tid < b.tid ? -1 : a.tid > b.tid ? 1 : 0))
  const longs: Lot[] = []
  const shorts: Lot[] = []
  const r: PnlResult = {
    fills: sorted.length,
    fillsInRange: 0,
    unknownSideFills: 0,
    closedQtyAtoms: 0n,
    realisedGross: 0n,
    quoteFees: 0n,
    realisedNet: 0n,
    otherFees: new Map(),
    openQtyAtoms: 0n,
    openCost: 0n,
    valueScale: scale,
    historyFromMs: sorted[0]?.timeMs ?? null,
  }
  for (const f of sorted) {
    const counted = inRange(f.timeMs)
    if (counted) r.fillsInRange++
    if (f.side === null) {
      r.unknownSideFills++
      continue
    }
    const price = parseDecimal(f.price, m.priceDecimals)
    let qty = parseDecimal(f.quantity, m.quantityDecimals)
    const [against, into] = f.side === 'B' ? [shorts, longs] : [longs, shorts]
    while (qty > 0n && against.length > 0) {
      const lot = against[0]!
      const q = qty < lot.qty ? qty : lot.qty
      // long closed by a sell: (sell - buy) x q; short closed by a buy: (sell(lot) - buy) x q
      const pnl = (f.side === 'A' ? price - lot.price : lot.price - price) * q * up
      if (counted) {
        r.realisedGross += pnl
        r.closedQtyAtoms += q
      }
      lot.qty -= q
      qty -= q
      if (lot.qty === 0n) against.shift()
    }
    if (qty > 0n) into.push({ qty, price })
    if (counted && f.fee !== null && f.feeAssetId !== null) {
      const d = feeDecimals(f.feeAssetId)
      if (d === null) throw new Error(`fee asset ${f.feeAssetId} is not listed`)
      const fee = parseDecimal(f.fee, d)
      if (f.feeAssetId === m.quoteAssetId) r.quoteFees += fee * quoteUp
      else r.otherFees.set(f.feeAssetId, (r.otherFees.get(f.feeAssetId) ?? 0n) + fee)
    }
  }
  for (const l of longs) {
    r.openQtyAtoms += l.qty
    r.openCost += l.qty * l.price * up
  }
  for (const l of shorts) {
    r.openQtyAtoms -= l.qty
    r.openCost -= l.qty * l.price * up
  }
  r.realisedNet = r.realisedGross - r.quoteFees
  return r
}

/** Formats a value at the result's scale as an exact decimal (trailing zeros trimmed). */
export function fmtValue(x: bigint, scale: number): string {
  return formatAtoms(x, scale)
}
