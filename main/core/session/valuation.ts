import { mulDivFloor } from '../money/decimal'
import { markState, type MarketData } from './market-data'

/** USD values use the spec's `usd_atoms` scale. */
export const USD_DECIMALS = 8

const pow10 = (n: number): bigint => 10n ** BigInt(n)

/** USD atoms of `atoms` of an asset with `decimals` at a mark (USD per unit x 10^8), floored. */
export function usdAtMark(atoms: bigint, decimals: number, markUsdAtoms: bigint): bigint {
  return mulDivFloor(atoms, markUsdAtoms, pow10(decimals))
}

/**
 * An asset's contribution to a credit line: a long counts at its LTV haircut, a short at its
 * full value; negative fractions round down (the spec's rule for position values).
 */
export function creditContribution(netAtoms: bigint, decimals: number, markUsdAtoms: bigint, ltvPercent: number): bigint {
  if (netAtoms >= 0n) return mulDivFloor(netAtoms * markUsdAtoms, BigInt(ltvPercent), pow10(decimals) * 100n)
  return mulDivFloor(netAtoms, markUsdAtoms, pow10(decimals))
}

/**
 * A credit line's available USD (the service's rule): the line plus each position's contribution
 * (net of resting orders' pending exposure) at a fresh mark; null when a position's mark is
 * stale. `lastKnown` takes any mark, stale or not; both null when a position has no mark at all.
 */
export function creditAvailable(
  md: MarketData,
  lineUsdAtoms: bigint,
  positions: readonly { asset_id: number; actual_qty: bigint; pending_exposure_qty: bigint }[],
  now: number,
): { available: bigint | null; lastKnown: bigint | null } {
  let available: bigint | null = lineUsdAtoms
  let lastKnown: bigint | null = lineUsdAtoms
  for (const p of positions) {
    const net = p.actual_qty + p.pending_exposure_qty
    if (net === 0n && p.actual_qty === 0n) continue
    const meta = md.assets.get(p.asset_id)
    const ms = markState(md, p.asset_id, now)
    if (!meta || !ms.mark) return { available: null, lastKnown: null }
    const v = creditContribution(net, meta.decimals, ms.mark.usdAtoms, meta.creditLtv)
    if (lastKnown !== null) lastKnown += v
    if (available !== null) available = ms.stale ? null : available + v
  }
  return { available, lastKnown }
}
