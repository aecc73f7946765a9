/**
 * Exact decimal arithmetic for display strings, on BigInt. The renderer never turns an
 * amount into a JS number: it checks what the operator types against the asset's precision,
 * and adds, subtracts and compares the decimal strings main sends.
 */

import { formatNumber } from '../../../../main/contract/format'

const PLAIN = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/
/** What the contract accepts for a typed amount (no sign, no exponent, no leading zeros). */
const TYPED = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/

export type PrecisionCheck = { ok: true; value: string } | { ok: false; reason: string; incomplete: boolean }

/**
 * Checks an amount as typed, against the asset's or market's number of decimals. Too many
 * decimals is rejected (never rounded); an empty field or a trailing dot is "incomplete".
 */
export function checkAmount(input: string, decimals: number, opts: { allowZero?: boolean } = {}): PrecisionCheck {
  const s = input.trim()
  if (s === '') return { ok: false, reason: 'enter an amount', incomplete: true }
  if (/^[0-9]+\.$/.test(s)) return { ok: false, reason: 'add the decimals after the point', incomplete: true }
  if (!TYPED.test(s)) {
    if (/^0[0-9]/.test(s)) return { ok: false, reason: 'no leading zeros', incomplete: false }
    if (/[eE]/.test(s)) return { ok: false, reason: 'no exponent notation; type the digits', incomplete: false }
    if (s.includes(',')) return { ok: false, reason: 'use a point as the decimal separator, no thousands separators', incomplete: false }
    if (s.startsWith('-')) return { ok: false, reason: 'the amount must be positive', incomplete: false }
    return { ok: false, reason: 'digits and one decimal point only', incomplete: false }
  }
  const frac = s.split('.')[1] ?? ''
  if (frac.length > decimals) {
    return {
      ok: false,
      reason: `at most ${decimals} decimal${decimals === 1 ? '' : 's'} for this asset (you typed ${frac.length}); it is never rounded`,
      incomplete: false,
    }
  }
  if (!opts.allowZero && toAtoms(s, decimals) === 0n)
    return { ok: false, reason: 'the amount must be greater than zero', incomplete: false }
  return { ok: true, value: s }
}

/** Parses a plain decimal (optionally negative) into atoms at `decimals`; throws on excess precision. */
export function toAtoms(value: string, decimals: number): bigint {
  const s = value.trim()
  if (!PLAIN.test(s)) throw new RangeError(`not a plain decimal: ${JSON.stringify(value)}`)
  const negative = s.startsWith('-')
  const [intPart = '0', frac = ''] = (negative ? s.slice(1) : s).split('.')
  if (frac.length > decimals) throw new RangeError(`${value} has more than ${decimals} decimals`)
  const atoms = BigInt(intPart) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0')
  return negative ? -atoms : atoms
}

/** Formats atoms as a plain decimal with trailing zeros removed ("1.5", "-0.25", "3"). */
export function fromAtoms(atoms: bigint, decimals: number): string {
  const negative = atoms < 0n
  const abs = negative ? -atoms : atoms
  const scale = 10n ** BigInt(decimals)
  const int = abs / scale
  const frac = decimals > 0 ? (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '') : ''
  return `${negative && abs !== 0n ? '-' : ''}${int}${frac ? `.${frac}` : ''}`
}

function scaleOf(...values: string[]): number {
  return Math.max(0, ...values.map((v) => (v.split('.')[1] ?? '').length))
}

export function isDecimal(value: string): boolean {
  return PLAIN.test(value.trim())
}

export function addDecimal(a: string, b: string): string {
  const d = scaleOf(a, b)
  return fromAtoms(toAtoms(a, d) + toAtoms(b, d), d)
}

export function subDecimal(a: string, b: string): string {
  const d = scaleOf(a, b)
  return fromAtoms(toAtoms(a, d) - toAtoms(b, d), d)
}

export function sumDecimals(values: readonly string[]): string {
  if (values.length === 0) return '0'
  const d = scaleOf(...values)
  return fromAtoms(
    values.reduce((acc, v) => acc + toAtoms(v, d), 0n),
    d,
  )
}

export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const d = scaleOf(a, b)
  const x = toAtoms(a, d)
  const y = toAtoms(b, d)
  return x < y ? -1 : x > y ? 1 : 0
}

/** `value * bps / 10000`, truncated to `decimals` (an estimate; the service's figure is authoritative). */
export function bpsOf(value: string, bps: number, decimals: number): string {
  const atoms = toAtoms(value, decimals)
  return fromAtoms((atoms * BigInt(Math.trunc(bps))) / 10000n, decimals)
}

/** `part / whole` as a percentage string with `digits` decimals (truncated); null when whole is zero. */
export function percentOf(part: string, whole: string, digits = 1): string | null {
  const d = scaleOf(part, whole)
  const w = toAtoms(whole, d)
  if (w === 0n) return null
  const scaled = (toAtoms(part, d) * 100n * 10n ** BigInt(digits)) / w
  return fromAtoms(scaled, digits)
}

/**
 * Display form of a decimal: thousands grouped, decimals exactly as given (not trimmed),
 * padded to `minDecimals` (so a column lines up), never rounded — the desk's one number
 * format (main/contract/format).
 */
export function formatDecimal(value: string, minDecimals = 0): string {
  return formatNumber(value, { minDecimals, trim: false })
}
