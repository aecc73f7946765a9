import { describe, expect, it } from 'vitest'
import { FillBook, type StreamFill } from './fills'

const f = (user: string, tid: bigint, time: number, extra: Partial<StreamFill> = {}): StreamFill => ({
  user,
  tid,
  time,
  side: 'B',
  coin: '1',
  px: '1',
  sz: '1',
  oid: null,
  cloid: null,
  fee: '0',
  feeAssetId: null,
  ...extra,
})

describe('FillBook', () => {
  it('deduplicates on (user, tid): both sides of a trade are two fills, a replay is none', () => {
    const b = new FillBook()
    expect(b.add([f('0xa', 1n, 10), f('0xb', 1n, 10)])).toHaveLength(2)
    expect(b.add([f('0xa', 1n, 10), f('0xa', 2n, 11)])).toHaveLength(1)
    expect(b.list('0xa').map((x) => x.tid)).toEqual([1n, 2n])
    expect(b.lastTime('0xa')).toBe(11)
    expect(b.lastTid('0xa')).toBe(2n)
  })

  it('keeps tids above 2^53 distinct', () => {
    const b = new FillBook()
    b.add([f('0xa', 9007199254740993n, 1), f('0xa', 9007199254740992n, 1)])
    expect(b.list('0xa')).toHaveLength(2)
  })

  it('merges fields a second source has', () => {
    const b = new FillBook()
    b.add([f('0xa', 5n, 1, { oid: null, feeAssetId: null })])
    b.add([f('0xa', 5n, 1, { oid: 77n, feeAssetId: 2 })])
    expect(b.list('0xa')[0]).toMatchObject({ oid: 77n, feeAssetId: 2 })
  })
})
