import { DeskError } from '../errors/desk-error'

/**
 * Exact conversion between display decimal strings and integer atoms.
 * Never rounds: input with more fractional digits than allowed is rejected.
 */

const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/
const SIGNED_DECIMAL = /^(-)?(0|[1-9][0-9]*)(?:\.([0-9]+))?$/
const ATOMS = /^(0|[1-9][0-9]*)$/

export class AmountError extends DeskError {
  constructor(code: 'InvalidAmount' | 'ExcessPrecision' | 'NegativeAmount' | 'AmountTooLarge', message: string, input: string) {
    super(code, message, { input: input.length > 80 ? input.slice(0, 80) + '…' : input })
  }
}

function checkDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) {
    throw new DeskError('InvalidDecimals', `decimals must be an integer 0..36, got ${String(decimals)}`)
  }
}

function fromParts(sign: string | undefined, whole: string, frac: string | undefined, decimals: number, input: string): bigint {
  const f = frac ?? ''
  if (f.length > decimals) {
    // Trailing zeros beyond the precision are still more digits than allowed: reject, the operator fixes it.
    throw new AmountError('ExcessPrecision', `"${input}" has ${f.length} decimal places; at most ${decimals} allowed`, input)
  }
  const atoms = BigInt(whole + f.padEnd(decimals, '0'))
  return sign === '-' ? -atoms : atoms
}

/** Parses a non-negative display decimal ("12.5") into atoms at `decimals` places. */
export function parseDecimal(input: string, decimals: number): bigint {
  checkDecimals(decimals)
  if (typeof input !== 'string') throw new AmountError('InvalidAmount', 'amount must be a decimal string', String(input))
  const s = input.trim()
  if (s.startsWith('-')) throw new AmountError('NegativeAmount', `"${input}" is negative`, input)
  const m = DECIMAL.exec(s)
  if (!m) throw new AmountError('InvalidAmount', `"${input}" is not a plain decimal number`, input)
  return fromParts(undefined, m[1]!, m[2], decimals, input)
}

/** Like parseDecimal but allows a leading minus (signed positions). */
export function parseSignedDecimal(input: string, decimals: number): bigint {
  checkDecimals(decimals)
  if (typeof input !== 'string') throw new AmountError('InvalidAmount', 'amount must be a decimal string', String(input))
  const m = SIGNED_DECIMAL.exec(input.trim())
  if (!m) throw new AmountError('InvalidAmount', `"${input}" is not a plain decimal number`, input)
  return fromParts(m[1], m[2]!, m[3], decimals, input)
}

/** Parses a digit-only atom string ("123"), as the services send raw amounts. */
export function parseAtoms(input: string): bigint {
  if (typeof input !== 'string' || !ATOMS.test(input)) {
    throw new AmountError('InvalidAmount', `"${String(input)}" is not a non-negative integer atom string`, String(input))
  }
  return BigInt(input)
}

/**
 * Formats atoms as a display decimal. By default trailing fractional zeros are trimmed
 * ("1.5"); `fixed` keeps all `decimals` places ("1.50000000").
 */
export function formatAtoms(atoms: bigint, decimals: number, opts: { fixed?: boolean } = {}): string {
  checkDecimals(decimals)
  const neg = atoms < 0n
  const abs = neg ? -atoms : atoms
  const s = abs.toString().padStart(decimals + 1, '0')
  const whole = s.slice(0, s.length - decimals)
  let frac = decimals > 0 ? s.slice(s.length - decimals) : ''
  if (!opts.fixed) frac = frac.replace(/0+$/, '')
  return (neg ? '-' : '') + whole + (frac ? '.' + frac : '')
}

/** Number of fractional digits a decimal string carries ("1.250" -> 3). */
export function fractionDigits(input: string): number {
  const i = input.indexOf('.')
  return i < 0 ? 0 : input.length - i - 1
}

/** Multiplies then floor-divides, exact on bigints (a * b / c, rounded toward -infinity). */
export function mulDivFloor(a: bigint, b: bigint, c: bigint): bigint {
  if (c === 0n) throw new DeskError('DivisionByZero', 'division by zero')
  const n = a * b
  const q = n / c
  return n % c !== 0n && n < 0n !== c < 0n ? q - 1n : q
}

/** Counts significant figures of a positive atom integer (trailing zeros of the integer are not significant). */
export function significantFigures(atoms: bigint): number {
  if (atoms === 0n) return 0
  const s = (atoms < 0n ? -atoms : atoms).toString().replace(/0+$/, '')
  return s.length
}
