import { describe, expect, it } from 'vitest'
import { formatAtoms, mulDivFloor, parseAtoms, parseDecimal, parseSignedDecimal, significantFigures } from './decimal'

describe('decimal money', () => {
  it('parses display decimals into atoms exactly', () => {
    expect(parseDecimal('1', 8)).toBe(100000000n)
    expect(parseDecimal('0.00000001', 8)).toBe(1n)
    expect(parseDecimal('123456789012345678901234567890.12345678', 8)).toBe(12345678901234567890123456789012345678n)
    expect(parseDecimal('12.5', 2)).toBe(1250n)
    expect(parseDecimal('7', 0)).toBe(7n)
  })

  it('rejects excess precision instead of rounding, including trailing zeros', () => {
    expect(() => parseDecimal('0.000000001', 8)).toThrowError(/at most 8/)
    expect(() => parseDecimal('1.10', 1)).toThrowError(expect.objectContaining({ code: 'ExcessPrecision' }))
    expect(() => parseDecimal('1.5', 0)).toThrowError(expect.objectContaining({ code: 'ExcessPrecision' }))
  })

  it('rejects anything that is not a plain decimal', () => {
    for (const bad of ['', '.5', '5.', '1e3', '0x10', '01', '+1', '1,5', ' ', 'NaN', 'Infinity', '1.2.3', '１']) {
      expect(() => parseDecimal(bad, 8), bad).toThrowError(expect.objectContaining({ code: 'InvalidAmount' }))
    }
    expect(() => parseDecimal('-1', 8)).toThrowError(expect.objectContaining({ code: 'NegativeAmount' }))
    expect(() => parseDecimal(1 as unknown as string, 8)).toThrowError(expect.objectContaining({ code: 'InvalidAmount' }))
  })

  it('parses signed decimals and atom strings', () => {
    expect(parseSignedDecimal('-0.5', 8)).toBe(-50000000n)
    expect(parseAtoms('18446744073709551617')).toBe(18446744073709551617n)
    expect(() => parseAtoms('1.0')).toThrowError(expect.objectContaining({ code: 'InvalidAmount' }))
    expect(() => parseAtoms('-1')).toThrowError(expect.objectContaining({ code: 'InvalidAmount' }))
  })

  it('formats atoms back to the same display string', () => {
    expect(formatAtoms(1n, 8)).toBe('0.00000001')
    expect(formatAtoms(150000000n, 8)).toBe('1.5')
    expect(formatAtoms(150000000n, 8, { fixed: true })).toBe('1.50000000')
    expect(formatAtoms(-50000000n, 8)).toBe('-0.5')
    expect(formatAtoms(0n, 8)).toBe('0')
    expect(formatAtoms(42n, 0)).toBe('42')
    for (const s of ['0.1', '99999999999999999999.99999999', '3']) expect(formatAtoms(parseDecimal(s, 8), 8)).toBe(s)
  })

  it('floor-divides exactly, including negatives', () => {
    expect(mulDivFloor(7n, 1n, 2n)).toBe(3n)
    expect(mulDivFloor(-7n, 1n, 2n)).toBe(-4n)
    expect(significantFigures(1230000n)).toBe(3)
  })
})
