import { describe, expect, it } from 'vitest'
import { csvCell, toCsv } from './csv'
import { fmtValue, realisedPnl, type PnlFill, type PnlMarket } from './pnl'

// BTC/USDC as the sandbox lists it: price 2 decimals, quantity 5, USDC 8, BTC 8.
const m: PnlMarket = { priceDecimals: 2, quantityDecimals: 5, quoteDecimals: 8, baseAssetId: 3, quoteAssetId: 1 }
const dec = (id: number) => (id === 1 || id === 3 ? 8 : null)
let tid = 0n
const f = (
  timeMs: number,
  side: 'B' | 'A' | null,
  price: string,
  quantity: string,
  fee: string | null = null,
  feeAssetId: number | null = null,
): PnlFill => ({ tid: ++tid, timeMs, side, price, quantity, fee, feeAssetId })
const v = (x: bigint) => fmtValue(x, 8)

describe('realised PnL (FIFO, exact)', () => {
  const fills = [
    f(1000, 'B', '64000', '0.1', '0.00001', 3), // lot 1: 0.1 @ 64000
    f(2000, 'B', '66000.5', '0.1', '0.00001', 3), // lot 2: 0.1 @ 66000.50
    f(3000, 'A', '65000', '0.15', '0.975', 1), // closes 0.1 of lot 1 (+100) and 0.05 of lot 2 (-50.025)
    f(4000, 'A', '70000.01', '0.05', '0.35000005', 1), // closes 0.05 of lot 2: (70000.01 - 66000.50) x 0.05 = 199.97550
  ]

  it('closes the oldest lots first and keeps every digit', () => {
    const r = realisedPnl(m, fills, {}, dec)
    // 100 - 50.025 + 199.9755 = 249.9505 gross; fees 0.975 + 0.35000005 = 1.32500005 USDC
    expect(v(r.realisedGross)).toBe('249.9505')
    expect(v(r.quoteFees)).toBe('1.32500005')
    expect(v(r.realisedNet)).toBe('248.62549995')
    expect(r.closedQtyAtoms).toBe(20_000n) // 0.2 at 5 decimals
    expect(r.openQtyAtoms).toBe(0n)
    expect(r.otherFees.get(3)).toBe(2000n) // 0.00002 BTC, listed apart
  })

  it('counts only closings inside [from, to) but uses the cost of lots opened before', () => {
    const r = realisedPnl(m, fills, { fromMs: 4000, toMs: 5000 }, dec)
    expect(v(r.realisedGross)).toBe('199.9755')
    expect(v(r.quoteFees)).toBe('0.35000005')
    expect(r.fillsInRange).toBe(1)
    expect(r.otherFees.size).toBe(0)
    const before = realisedPnl(m, fills, { fromMs: 0, toMs: 4000 }, dec)
    expect(v(before.realisedGross)).toBe('49.975')
  })

  it('a sale beyond the long lots opens a short that a later buy closes', () => {
    const r = realisedPnl(m, [f(1, 'A', '65000', '0.1'), f(2, 'B', '64000', '0.04'), f(3, 'B', '66000', '0.01')], {}, dec)
    // (65000 - 64000) x 0.04 + (65000 - 66000) x 0.01 = 40 - 10
    expect(v(r.realisedGross)).toBe('30')
    expect(r.openQtyAtoms).toBe(-5000n)
    expect(v(r.openCost)).toBe('-3250')
  })

  it('leaves out fills without a side and says how many', () => {
    const r = realisedPnl(m, [f(1, 'B', '100', '1'), f(2, null, '200', '1'), f(3, 'A', '150', '1')], {}, dec)
    expect(v(r.realisedGross)).toBe('50')
    expect(r.unknownSideFills).toBe(1)
  })

  it('refuses a price with more decimals than the market has (never rounds)', () => {
    expect(() => realisedPnl(m, [f(1, 'B', '100.001', '1')], {}, dec)).toThrow(/decimal/i)
  })
})

describe('CSV', () => {
  it('quotes per RFC 4180 and defuses formulas', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`)
    expect(csvCell('+1')).toBe("'+1")
    expect(csvCell('-2')).toBe("'-2")
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvCell('\tcmd')).toBe("'\tcmd")
    expect(csvCell(null)).toBe('')
    expect(csvCell(12n)).toBe('12')
    expect(toCsv(['a', 'b'] as const, [{ a: '1', b: 'x,y' }])).toBe('a,b\r\n1,"x,y"\r\n')
  })
})
