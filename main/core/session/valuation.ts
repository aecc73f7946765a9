import { mulDivFloor } from '../money/decimal'

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
