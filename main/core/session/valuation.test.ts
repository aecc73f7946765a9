import { describe, expect, it } from 'vitest'
import { warningLevel } from '../features/credit/credit-health.service'
import { creditAvailable, creditContribution, usdAtMark } from './valuation'
import type { MarketData } from './market-data'

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

describe('creditAvailable', () => {
  const NOW = 1_700_000_000_000
  const md = (btcMarkAt: number | null): MarketData => ({
    assets: new Map([
      [1, { assetId: 1, symbol: 'BTC', decimals: 8, creditLtv: 80 }],
      [2, { assetId: 2, symbol: 'ETH', decimals: 8, creditLtv: 70 }],
    ]),
    marks: new Map([
      ...(btcMarkAt === null ? [] : [[1, { usdAtoms: 6_500_000_000_000n, sourceTsMs: btcMarkAt }] as const]),
      [2, { usdAtoms: 320_000_000_000n, sourceTsMs: NOW }],
    ]),
    oracle: { status: 'available', reasonCode: null },
    fetchedAt: NOW,
    markStaleAfterMs: 60_000,
  })
  const line = 1_000_000_000_000n // 10,000 USD
  const long = { asset_id: 1, actual_qty: 100_000_000n, pending_exposure_qty: 0n } // 1 BTC: +52,000 at 80%
  const short = { asset_id: 2, actual_qty: -200_000_000n, pending_exposure_qty: -100_000_000n } // -3 ETH with the resting sell: -9,600

  it('adds each position net of its resting orders, longs at their LTV, shorts in full', () => {
    expect(creditAvailable(md(NOW), line, [long, short], NOW)).toEqual({ available: 5_240_000_000_000n, lastKnown: 5_240_000_000_000n })
  })
  it('a stale mark leaves available unknown, the last-known figure at that mark', () => {
    expect(creditAvailable(md(NOW - 120_000), line, [long, short], NOW)).toEqual({ available: null, lastKnown: 5_240_000_000_000n })
  })
  it('a position without any mark leaves both unknown; a flat position needs none', () => {
    expect(creditAvailable(md(null), line, [short, long], NOW)).toEqual({ available: null, lastKnown: null })
    expect(creditAvailable(md(null), line, [{ asset_id: 1, actual_qty: 0n, pending_exposure_qty: 0n }], NOW)).toEqual({
      available: line,
      lastKnown: line,
    })
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
