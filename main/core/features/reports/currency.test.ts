import { describe, expect, it } from 'vitest'
import { isDeskError } from '../../errors/desk-error'
import { formatAtoms } from '../../money/decimal'
import type { MarketData } from '../../session'
import { convertAtoms, currencyChoices, resolveCurrency, USD } from './currency'

const NOW = 1_800_000_000_000
const usd = (whole: bigint, frac = 0n) => whole * 100_000_000n + frac // mark: USD per unit x 10^8
function md(over: Partial<MarketData> = {}): MarketData {
  return {
    assets: new Map([
      [1, { assetId: 1, symbol: 'USDC', decimals: 8, creditLtv: 100 }],
      [3, { assetId: 3, symbol: 'BTC', decimals: 8, creditLtv: 80 }],
      [4, { assetId: 4, symbol: 'ETH', decimals: 8, creditLtv: 75 }],
      [9, { assetId: 9, symbol: 'NOPX', decimals: 6, creditLtv: 0 }],
    ]),
    marks: new Map([
      [1, { usdAtoms: usd(1n), sourceTsMs: NOW - 1_000 }],
      [3, { usdAtoms: usd(64_000n, 50_000_000n), sourceTsMs: NOW - 2_000 }], // 64000.5
      [4, { usdAtoms: usd(3_200n), sourceTsMs: NOW - 60 * 60_000 }], // an hour old: stale
    ]),
    oracle: { status: 'available', reasonCode: null },
    fetchedAt: NOW,
    markStaleAfterMs: 60_000,
    ...over,
  }
}
const code = (f: () => unknown): string => {
  try {
    f()
  } catch (e) {
    return isDeskError(e) ? e.code : `not a DeskError: ${String(e)}`
  }
  return 'no error'
}

describe('report currency: USD or an asset with a live mark', () => {
  it('resolves USD (the default) and a listed asset by symbol, any case, with its mark and time', () => {
    expect(resolveCurrency(undefined, md(), NOW)).toBe(USD)
    expect(resolveCurrency('usd', md(), NOW)).toBe(USD)
    const btc = resolveCurrency('btc', md(), NOW)
    expect(btc).toEqual({
      code: 'BTC',
      decimals: 8,
      asset: { assetId: 3, symbol: 'BTC', markUsdAtoms: usd(64_000n, 50_000_000n), markTimeMs: NOW - 2_000 },
    })
  })

  it('refuses with a typed error: an unknown code, an asset without a mark, a stale mark, the oracle down', () => {
    expect(code(() => resolveCurrency('EUR', md(), NOW))).toBe('InvalidCurrency')
    expect(code(() => resolveCurrency('NOPX', md(), NOW))).toBe('CurrencyUnavailable')
    expect(code(() => resolveCurrency('ETH', md(), NOW))).toBe('CurrencyUnavailable')
    expect(code(() => resolveCurrency('BTC', md({ oracle: { status: 'unavailable', reasonCode: 'OracleDown' } }), NOW))).toBe(
      'CurrencyUnavailable',
    )
    // USD needs no mark of its own: still available with the oracle down (its rows then say why each value is unknown)
    expect(resolveCurrency('USD', md({ oracle: { status: 'unavailable', reasonCode: 'OracleDown' } }), NOW)).toBe(USD)
  })

  it('lists USD first, then only the assets whose mark is live', () => {
    expect(currencyChoices(md(), NOW)).toEqual([
      { code: 'USD', markUsd: null, markTimeMs: null },
      { code: 'BTC', markUsd: '64000.5', markTimeMs: NOW - 2_000 },
      { code: 'USDC', markUsd: '1', markTimeMs: NOW - 1_000 },
    ])
  })
})

describe('conversion at the marks: bigint only, one floor at the end', () => {
  const btc = resolveCurrency('BTC', md(), NOW)
  const usdc = resolveCurrency('USDC', md(), NOW)

  it('USD: atoms x mark / 10^scale, every digit kept down to the cent-of-a-cent', () => {
    // 0.00000001 BTC (1 atom) at 64000.5 = 0.000640005 USD, floored to 8 decimals
    expect(formatAtoms(convertAtoms(1n, 8, usd(64_000n, 50_000_000n), USD), 8)).toBe('0.00064')
    // 1234.56789012 USDC at 1 USD: exact
    expect(formatAtoms(convertAtoms(123_456_789_012n, 8, usd(1n), USD), 8)).toBe('1234.56789012')
    // a notional at price+quantity decimals (2 + 5): 0.1 BTC x 64000.00 = 6400 USDC
    expect(formatAtoms(convertAtoms(64_000_000_000n, 7, usd(1n), USD), 8)).toBe('6400')
  })

  it('an asset: USDC in BTC at both marks, exact where a float is not', () => {
    // 64000.5 USDC is exactly 1 BTC at these marks
    expect(formatAtoms(convertAtoms(6_400_050_000_000n, 8, usd(1n), btc), 8)).toBe('1')
    // 100 USDC = 100 / 64000.5 BTC = 0.00156248779... → floored to 8 decimals
    expect(formatAtoms(convertAtoms(10_000_000_000n, 8, usd(1n), btc), 8)).toBe('0.00156248')
    expect(100 / 64000.5).not.toBe(0.00156248) // what a float would have to round
    // a large amount loses nothing: 10^12 USDC and back
    const big = 10n ** 20n // 10^12 USDC in atoms
    expect(convertAtoms(big, 8, usd(1n), usdc)).toBe(big)
    // BTC in BTC is the amount itself (the marks cancel), whatever the input scale
    expect(convertAtoms(123_456_789n, 8, usd(64_000n, 50_000_000n), btc)).toBe(123_456_789n)
    expect(convertAtoms(1_234_567_890n, 9, usd(64_000n, 50_000_000n), btc)).toBe(123_456_789n)
  })

  it('floors toward minus infinity on a negative value (a loss is never shown smaller)', () => {
    expect(convertAtoms(-1n, 8, usd(64_000n, 50_000_000n), USD)).toBe(-64_001n)
  })

  it('refuses a bad scale rather than guessing', () => {
    expect(() => convertAtoms(1n, -1, usd(1n), USD)).toThrow(RangeError)
    expect(() => convertAtoms(1n, 1.5, usd(1n), USD)).toThrow(RangeError)
  })
})
