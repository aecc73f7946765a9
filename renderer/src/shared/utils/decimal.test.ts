import { describe, expect, it } from 'vitest'
import {
  addDecimal,
  bpsOf,
  checkAmount,
  compareDecimal,
  formatDecimal,
  fromAtoms,
  percentOf,
  subDecimal,
  sumDecimals,
  toAtoms,
} from './decimal'

describe('checkAmount (as the operator types)', () => {
  it('accepts exactly the asset precision and rejects one more decimal, never rounding', () => {
    expect(checkAmount('1.123456', 6)).toEqual({ ok: true, value: '1.123456' })
    const r = checkAmount('1.1234567', 6)
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.reason).toMatch(/at most 6 decimals/)
      expect(r.incomplete).toBe(false)
    }
  })
  it('treats an empty field and a trailing point as incomplete, not as an error', () => {
    expect(checkAmount('', 6)).toMatchObject({ ok: false, incomplete: true })
    expect(checkAmount('12.', 6)).toMatchObject({ ok: false, incomplete: true })
  })
  it('rejects zero, signs, exponents, separators and leading zeros', () => {
    expect(checkAmount('0', 6)).toMatchObject({ ok: false, reason: expect.stringMatching(/greater than zero/) })
    expect(checkAmount('0.000000', 6)).toMatchObject({ ok: false })
    expect(checkAmount('0', 6, { allowZero: true }).ok).toBe(true)
    expect(checkAmount('-1', 6)).toMatchObject({ ok: false, reason: expect.stringMatching(/positive/) })
    expect(checkAmount('1e6', 6)).toMatchObject({ ok: false, reason: expect.stringMatching(/exponent/) })
    expect(checkAmount('1,000', 6)).toMatchObject({ ok: false, reason: expect.stringMatching(/separator/) })
    expect(checkAmount('01.5', 6)).toMatchObject({ ok: false, reason: expect.stringMatching(/leading zeros/) })
  })
  it('handles amounts beyond 2^53 exactly', () => {
    expect(checkAmount('123456789012345678901234.12345678', 8).ok).toBe(true)
    expect(toAtoms('123456789012345678901234.12345678', 8)).toBe(12345678901234567890123412345678n)
  })
  it('with zero decimals accepts integers only', () => {
    expect(checkAmount('5', 0).ok).toBe(true)
    expect(checkAmount('5.0', 0).ok).toBe(false)
  })
})

describe('exact arithmetic on decimal strings', () => {
  it('converts atoms both ways without loss', () => {
    expect(fromAtoms(toAtoms('0.1', 18) + toAtoms('0.2', 18), 18)).toBe('0.3')
    expect(fromAtoms(-25n, 2)).toBe('-0.25')
    expect(fromAtoms(300n, 2)).toBe('3')
    expect(() => toAtoms('1.234', 2)).toThrow(RangeError)
  })
  it('adds, subtracts, sums and compares mixed scales', () => {
    expect(addDecimal('0.1', '0.2')).toBe('0.3')
    expect(subDecimal('1', '1.000000000000000001')).toBe('-0.000000000000000001')
    expect(sumDecimals(['1.5', '2.25', '-0.75'])).toBe('3')
    expect(sumDecimals([])).toBe('0')
    expect(compareDecimal('10', '9.99999999')).toBe(1)
    expect(compareDecimal('-1', '0')).toBe(-1)
    expect(compareDecimal('1.50', '1.5')).toBe(0)
  })
  it('computes a fee in basis points truncated to the asset precision', () => {
    expect(bpsOf('100', 50, 8)).toBe('0.5')
    expect(bpsOf('0.00000003', 5000, 8)).toBe('0.00000001')
  })
  it('gives a percentage, or null against a zero whole', () => {
    expect(percentOf('25', '200')).toBe('12.5')
    expect(percentOf('1', '3', 2)).toBe('33.33')
    expect(percentOf('1', '0')).toBeNull()
  })
  it('formats with grouping, keeping every decimal', () => {
    expect(formatDecimal('1234567.000001')).toBe('1,234,567.000001')
    expect(formatDecimal('-1000')).toBe('-1,000')
    expect(formatDecimal('1.5', 2)).toBe('1.50')
  })
})
