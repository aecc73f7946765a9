import { describe, expect, it } from 'vitest'
import {
  UNKNOWN,
  atomsToDecimal,
  describeUsd,
  formatAccount,
  formatAge,
  formatAmount,
  formatCountdown,
  formatDuration,
  formatDurationWords,
  formatNumber,
  formatPercent,
  formatRate,
  formatTime,
  formatTimeWithAge,
  formatUsd,
  formatUsdCents,
  usdIsRounded,
  formatCurrencyOption,
  formatEarnWithdrawal,
  shortAddress,
  assetDisplayDecimals,
  amountIsCut,
  formatAssetName,
  formatMarketName,
  formatRelative,
  formatWhen,
} from './format'

const USDC = { symbol: 'USDC', decimals: 6 }
const BTC = { symbol: 'BTC', decimals: 8 }
const WEI = { symbol: 'ETH', decimals: 18 }
const USDC_8 = { symbol: 'USDC', decimals: 8 }

describe('atomsToDecimal', () => {
  it('is exact at any size and precision, trailing zeros trimmed', () => {
    expect(atomsToDecimal(1_500_000n, 6)).toBe('1.5')
    expect(atomsToDecimal(1n, 18)).toBe('0.000000000000000001')
    expect(atomsToDecimal(123456789012345678901234567890n, 18)).toBe('123456789012.34567890123456789')
    expect(atomsToDecimal(-250_000n, 6)).toBe('-0.25')
    expect(atomsToDecimal(0n, 6)).toBe('0')
    expect(atomsToDecimal(42n, 0)).toBe('42')
  })
  it('rejects impossible decimals', () => {
    expect(() => atomsToDecimal(1n, -1)).toThrow(RangeError)
    expect(() => atomsToDecimal(1n, 1.5)).toThrow(RangeError)
  })
})

describe('formatNumber', () => {
  it('groups thousands and keeps every digit (no rounding)', () => {
    expect(formatNumber('1234567.123456789123456789')).toBe('1,234,567.123456789123456789')
    expect(formatNumber('999')).toBe('999')
    expect(formatNumber('1000')).toBe('1,000')
    expect(formatNumber('-1234.5')).toBe('-1,234.5')
  })
  it('trims trailing zeros unless told not to, and pads to minDecimals', () => {
    expect(formatNumber('1.500')).toBe('1.5')
    expect(formatNumber('1.500', { trim: false })).toBe('1.500')
    expect(formatNumber('2', { minDecimals: 2 })).toBe('2.00')
    expect(formatNumber('2.12345', { minDecimals: 2 })).toBe('2.12345')
  })
  it('shows zero without a sign, and passes through what is not a plain decimal', () => {
    expect(formatNumber('-0.000')).toBe('0')
    expect(formatNumber('1e6')).toBe('1e6')
    expect(formatNumber('NaN')).toBe('NaN')
  })
})

describe('formatAmount', () => {
  it('from a decimal string in units, with the symbol', () => {
    expect(formatAmount('1234.50000001', BTC)).toBe('1,234.50000001 BTC')
    expect(formatAmount('100.000000', USDC)).toBe('100 USDC')
    expect(formatAmount('0.5', { symbol: 'USDC' })).toBe('0.5 USDC')
  })
  it('from bigint atoms with the asset decimals — never shows atoms', () => {
    expect(formatAmount(100_000_000_000n, USDC)).toBe('100,000 USDC')
    expect(formatAmount(1n, WEI)).toBe('0.000000000000000001 ETH')
    expect(formatAmount(-1_234_500_000n, USDC)).toBe('-1,234.5 USDC')
    expect(() => formatAmount(1n, { symbol: 'X' })).toThrow(/decimals/)
  })
  it('pads for aligned columns and shows unknown as a dash, never as zero', () => {
    expect(formatAmount('1.5', USDC, { minDecimals: 2 })).toBe('1.50 USDC')
    expect(formatAmount(null, USDC)).toBe(UNKNOWN)
    expect(formatAmount(undefined, USDC)).toBe(UNKNOWN)
  })
})

describe('formatUsd', () => {
  it('is "$" + grouped digits + at least two decimals, sign before the dollar', () => {
    expect(formatUsd('1234567.89')).toBe('$1,234,567.89')
    expect(formatUsd('-1234.5')).toBe('-$1,234.50')
    expect(formatUsd('1000')).toBe('$1,000.00')
    expect(formatUsd('0')).toBe('$0.00')
    expect(formatUsd('-0.00')).toBe('$0.00')
  })
  it('keeps finer digits exactly instead of rounding them away', () => {
    expect(formatUsd('0.000125')).toBe('$0.000125')
    expect(formatUsd('1.999999')).toBe('$1.999999')
    expect(formatUsd('12.3400')).toBe('$12.34')
  })
  it('shows unknown as a dash with its reason', () => {
    expect(formatUsd(null)).toBe(UNKNOWN)
    expect(describeUsd(null, 'no mark for BTC')).toEqual({ text: UNKNOWN, reason: 'no mark for BTC' })
    expect(describeUsd('5', 'no mark')).toEqual({ text: '$5.00', reason: null })
  })
})

describe('rates and percentages', () => {
  it('turns a fraction into a percentage exactly', () => {
    expect(formatRate('0.065')).toBe('6.5%')
    expect(formatRate('0.05')).toBe('5%')
    expect(formatRate('1')).toBe('100%')
    expect(formatRate('12.5')).toBe('1,250%')
    expect(formatRate('0.000123456')).toBe('0.0123456%')
    expect(formatRate('-0.01')).toBe('-1%')
    expect(formatRate('0')).toBe('0%')
    expect(formatRate(null)).toBe(UNKNOWN)
  })
  it('shows values already in percent with a % sign', () => {
    expect(formatPercent('75.50')).toBe('75.5%')
    expect(formatPercent(null)).toBe(UNKNOWN)
  })
})

describe('times', () => {
  const at = Date.UTC(2026, 10, 23, 23, 54, 7)
  it('formats a time in a given zone (default: the operator’s), 24-hour', () => {
    expect(formatTime(at, { timeZone: 'UTC' })).toBe('2026-11-23 23:54:07')
    expect(formatTime(at, { timeZone: 'Asia/Tokyo' })).toBe('2026-11-24 08:54:07')
    expect(formatTime(at, { timeZone: 'UTC', zone: true })).toBe('2026-11-23 23:54:07 UTC')
    expect(formatTime(Date.UTC(2026, 0, 1, 0, 0, 0), { timeZone: 'UTC' })).toBe('2026-01-01 00:00:00')
    expect(formatTime(at)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
    expect(formatTime(null)).toBe(UNKNOWN)
  })
  it('keeps each zone apart when formatters are reused, and follows a change of the system zone (TZ)', () => {
    for (let i = 0; i < 3; i++) {
      expect(formatTime(at, { timeZone: 'Asia/Tokyo' })).toBe('2026-11-24 08:54:07')
      expect(formatTime(at, { timeZone: 'UTC', zone: true })).toBe('2026-11-23 23:54:07 UTC')
      expect(formatTime(at, { timeZone: 'UTC' })).toBe('2026-11-23 23:54:07')
    }
    // (this file is typed for the renderer too, which has no Node types)
    const env = (globalThis as unknown as { process: { env: Record<string, string | undefined> } }).process.env
    const tz = env.TZ
    try {
      env.TZ = 'UTC'
      expect(formatTime(at)).toBe('2026-11-23 23:54:07')
      env.TZ = 'Asia/Tokyo'
      expect(formatTime(at)).toBe('2026-11-24 08:54:07')
    } finally {
      if (tz === undefined) delete env.TZ
      else env.TZ = tz
    }
  })
  it('gives relative ages and countdowns', () => {
    expect(formatAge(at - 12_000, at)).toBe('12s ago')
    expect(formatAge(at - 65_000, at)).toBe('1m 5s ago')
    expect(formatAge(at + 5_000, at)).toBe('0s ago')
    expect(formatAge(null, at)).toBe('never')
    expect(formatDuration(3 * 3_600_000 + 2 * 60_000)).toBe('3h 2m')
    expect(formatDuration(52 * 3_600_000)).toBe('2d 4h')
    expect(formatCountdown(at + 65_000, at)).toBe('in 1m 5s')
    expect(formatCountdown(at - 1, at)).toBe('now')
    expect(formatCountdown(null, at)).toBe(UNKNOWN)
    expect(formatTimeWithAge(at - 12_000, at, { timeZone: 'UTC' })).toBe('2026-11-23 23:53:55 (12s ago)')
  })
})

describe('formatDurationWords', () => {
  it('says a duration exactly, in words', () => {
    expect(formatDurationWords(60_000)).toBe('1 minute')
    expect(formatDurationWords(1500)).toBe('1.5 seconds')
    expect(formatDurationWords(1000)).toBe('1 second')
    expect(formatDurationWords(90_000)).toBe('1 minute 30 seconds')
    expect(formatDurationWords(24 * 3_600_000)).toBe('1 day')
    expect(formatDurationWords(365 * 86_400_000)).toBe('365 days')
    expect(formatDurationWords(26 * 3_600_000)).toBe('1 day 2 hours')
    expect(formatDurationWords(0)).toBe('0 seconds')
    expect(formatDurationWords(-1)).toBe(UNKNOWN)
  })
})

describe('accounts', () => {
  const address = '0x12ab34567890123456789012345678901234cdef'
  it('shows "Name (0x12ab…cdef)" with the full address available', () => {
    expect(formatAccount({ address, label: 'credit-1' })).toEqual({ text: 'credit-1 (0x12ab…cdef)', full: address })
    expect(formatAccount({ address, label: '  ' }).text).toBe('unnamed (0x12ab…cdef)')
    expect(formatAccount(address)).toEqual({ text: '0x12ab…cdef', full: address })
    expect(shortAddress('0x1234')).toBe('0x1234')
  })
})

describe('formatUsdCents (headlines and tables; the exact value goes on hover and in exports)', () => {
  it('shows two decimals, rounded half away from zero on the decimal string', () => {
    expect(formatUsdCents('727023.61406174')).toBe('$727,023.61')
    expect(formatUsdCents('727023.615')).toBe('$727,023.62')
    expect(formatUsdCents('999999.995')).toBe('$1,000,000.00')
    expect(formatUsdCents('-1234.505')).toBe('-$1,234.51')
    expect(formatUsdCents('-0.004')).toBe('$0.00')
    expect(formatUsdCents('1000')).toBe('$1,000.00')
    expect(formatUsdCents('0.000125')).toBe('$0.00')
    expect(formatUsdCents(null)).toBe(UNKNOWN)
  })
  it('says when the cents hide digits (then the exact value is shown on hover)', () => {
    expect(usdIsRounded('727023.61406174')).toBe(true)
    expect(usdIsRounded('12.3400')).toBe(false)
    expect(usdIsRounded('5')).toBe(false)
    expect(usdIsRounded(null)).toBe(false)
  })
})

describe('report currency options and earn withdrawals', () => {
  it('reads like a treasury tool: the mark at cents and its age', () => {
    expect(formatCurrencyOption({ code: 'USD', markUsd: null, markTimeMs: null }, 0)).toBe('USD')
    expect(formatCurrencyOption({ code: 'BTC', markUsd: '64974.2', markTimeMs: 1_000_000 }, 1_125_000)).toBe(
      'BTC — mark $64,974.20, 2m 5s ago',
    )
  })
  it('names an earn withdrawal by type, amount and created time, never by its operation id', () => {
    const at = Date.UTC(2026, 10, 25, 8, 0, 0)
    expect(formatEarnWithdrawal({ symbol: 'USDC', type: 'scheduled', gross: '1000', createdAt: at }, { timeZone: 'UTC' })).toBe(
      'scheduled withdrawal of 1,000 USDC, created 2026-11-25 08:00:00',
    )
  })
})

describe('display precision of asset amounts (readings only; the amount of a write keeps every digit)', () => {
  it('reads USD stablecoins to the cent and other assets at the digits received', () => {
    expect(assetDisplayDecimals('USDC', 8)).toBe(2)
    expect(assetDisplayDecimals('USDT')).toBe(2)
    expect(assetDisplayDecimals('BTC', 8)).toBe(8)
    expect(assetDisplayDecimals('ETH')).toBe(null)
  })
  it('cuts toward minus infinity, with thousands separators and the symbol', () => {
    expect(formatAmount('49000.08483638', { symbol: 'USDC' }, { display: true })).toBe('49,000.08 USDC')
    expect(formatAmount('708.899', { symbol: 'USDC' }, { display: true })).toBe('708.89 USDC')
    expect(formatAmount('-12000.001', { symbol: 'USDC' }, { display: true })).toBe('-12,000.01 USDC')
    expect(formatAmount('64174.33', { symbol: 'USDC' }, { display: true })).toBe('64,174.33 USDC')
    expect(formatAmount('76520', { symbol: 'USDC' }, { display: true })).toBe('76,520 USDC')
    expect(formatAmount(4_900_008_483_638n, USDC_8, { display: true })).toBe('49,000.08 USDC')
    expect(formatAmount('2.12345678', BTC, { display: true })).toBe('2.12345678 BTC')
    expect(formatAmount('1.5', { symbol: 'USDC' }, { display: true, minDecimals: 2 })).toBe('1.50 USDC')
  })
  it('never shows a positive amount as zero, nor cuts the amount of a write', () => {
    expect(formatAmount('0.00605975', { symbol: 'USDC' }, { display: true })).toBe('<0.01 USDC')
    expect(formatAmount('0', { symbol: 'USDC' }, { display: true })).toBe('0 USDC')
    expect(formatAmount('-0.004', { symbol: 'USDC' }, { display: true })).toBe('-0.01 USDC')
    expect(formatAmount('1250.123', { symbol: 'USDC' })).toBe('1,250.123 USDC')
    expect(formatAmount(null, { symbol: 'USDC' }, { display: true })).toBe(UNKNOWN)
  })
  it('says when digits are hidden (the exact amount then goes on hover)', () => {
    expect(amountIsCut('49000.08483638', { symbol: 'USDC' })).toBe(true)
    expect(amountIsCut('49000.0800', { symbol: 'USDC' })).toBe(false)
    expect(amountIsCut('2.12345678', { symbol: 'BTC' })).toBe(false)
    expect(amountIsCut(null, { symbol: 'USDC' })).toBe(false)
  })
  it('names assets and markets as people do', () => {
    expect(formatAssetName({ symbol: 'USDC' })).toBe('USDC')
    expect(formatMarketName({ symbol: 'BTC/USDC' })).toBe('BTC/USDC')
  })
})

describe('one way to say when: local time with its zone, relative beside it', () => {
  const at = Date.UTC(2026, 10, 29, 16, 54, 27)
  it('says "in …" for a future time, never "0s ago"', () => {
    expect(formatRelative(at + 5 * 60_000, at)).toBe('in 5m 0s')
    expect(formatRelative(at + 400, at)).toBe('now')
    expect(formatRelative(at - 12_000, at)).toBe('12s ago')
    expect(formatRelative(at, at)).toBe('0s ago')
    expect(formatRelative(null, at)).toBe(UNKNOWN)
    expect(formatTimeWithAge(at + 65_000, at, { timeZone: 'UTC' })).toBe('2026-11-29 16:55:32 (in 1m 5s)')
  })
  it('is 24-hour, with the zone, and no ISO text', () => {
    expect(formatWhen(at + 5 * 60_000, at, { timeZone: 'UTC' })).toBe('2026-11-29 16:59:27 UTC (in 5m 0s)')
    expect(formatWhen(at - 3_600_000, at, { timeZone: 'UTC' })).toBe('2026-11-29 15:54:27 UTC (1h 0m ago)')
    expect(formatWhen(Date.UTC(2026, 10, 29, 23, 0, 0), at, { timeZone: 'UTC' })).toMatch(/^2026-11-29 23:00:00 UTC \(in /)
    expect(formatWhen(at, at, { timeZone: 'Europe/Paris' })).toMatch(/^2026-11-29 17:54:27 (GMT\+1|CET) \(0s ago\)$/)
    expect(formatWhen(at, at, { timeZone: 'UTC' })).not.toMatch(/T\d|Z\b|AM|PM/)
    expect(formatWhen(null, at)).toBe(UNKNOWN)
  })
})
