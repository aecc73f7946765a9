import { describe, expect, it } from 'vitest'
import { warningLevel } from '../features/credit/credit-health.service'
import { creditContribution, usdAtMark } from './valuation'

const T = { watchPct: 50, warningPct: 75, criticalPct: 90 }

describe('valuation', () => {
  it('values atoms at a mark exactly, flooring', () => {
    // 2.5 BTC (8 decimals) at 65000.12345678 USD
    expect(usdAtMark(250_000_000n, 8, 6_500_012_345_678n)).toBe(16_250_030_864_195n)
    // 18-decimal token amount above 2^53
    expect(usdAtMark(123_456_789_000_000_000_000n, 18, 100_000_000n)).toBe(12_345_678_900n)
    expect(usdAtMark(1n, 8, 1n)).toBe(0n)
  })

  it('haircuts longs by LTV and counts shorts in full, rounding negatives down', () => {
    expect(creditContribution(100_000_000n, 8, 6_500_000_000_000n, 80)).toBe(5_200_000_000_000n)
    expect(creditContribution(-100_000_000n, 8, 6_500_000_000_000n, 80)).toBe(-6_500_000_000_000n)
    expect(creditContribution(-1n, 8, 3n, 50)).toBe(-1n)
  })
})

describe('warningLevel', () => {
  it('grades the share of the line in use against the thresholds', () => {
    const line = 10_000n
    expect(warningLevel('active', line, 6_000n, T)).toBe('ok')
    expect(warningLevel('active', line, 5_000n, T)).toBe('watch')
    expect(warningLevel('active', line, 2_500n, T)).toBe('warning')
    expect(warningLevel('active', line, 1_000n, T)).toBe('critical')
    expect(warningLevel('active', line, -1n, T)).toBe('critical')
    expect(warningLevel('active', line, null, T)).toBe('unknown')
    expect(warningLevel('frozen', line, 9_000n, T)).toBe('frozen')
  })
})
