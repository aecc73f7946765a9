import { describe, expect, it } from 'vitest'
import type { AccountDetailView, FillView } from '../../../../main/contract/types'
import { keepUnchanged } from './keep-unchanged'

const A = '0x1111111111111111111111111111111111111111' as const
const fill = (tid: string, price = '100'): FillView => ({
  tid,
  marketId: '1',
  side: 'B',
  price,
  size: '0.1',
  fee: '0.01',
  feeAssetId: 1,
  timeMs: 1_000 + Number(tid),
  oid: null,
  cloid: null,
})
const page = (over: Partial<AccountDetailView> = {}, address: `0x${string}` = A): AccountDetailView => ({
  account: { address, label: 'ops', group: '', hasKey: true, kind: 'balance', status: 'active', accountIndex: null },
  balances: [{ assetId: 1, symbol: 'USDC', available: '10', locked: '0', total: '10', usdValue: '10' }],
  credit: null,
  openOrders: [
    {
      marketId: '1',
      oid: '7',
      cloid: null,
      side: 'bid',
      price: '1',
      originalQty: '1',
      remainingQty: '1',
      filledQty: '0',
      timeMs: 5,
    },
  ],
  fills: [fill('1'), fill('2')],
  fetchedAt: 1,
  ...over,
})

describe('keepUnchanged: the next account page shares the lists that did not change', () => {
  it('keeps the shown fills, orders and balances when the push carries the same rows (a cancel does not re-render the fills)', () => {
    const prev = page()
    const next = page({ openOrders: [], fetchedAt: 2 })
    const kept = keepUnchanged(prev, next)
    expect(kept.fills).toBe(prev.fills)
    expect(kept.balances).toBe(prev.balances)
    expect(kept.openOrders).toBe(next.openOrders)
    expect(kept.openOrders).toEqual([])
    expect(kept.fetchedAt).toBe(2)
  })

  it('takes the new list when any row changed, was added or went', () => {
    const prev = page()
    expect(keepUnchanged(prev, page({ fills: [fill('1'), fill('2', '101')] })).fills[1]!.price).toBe('101')
    expect(keepUnchanged(prev, page({ fills: [fill('3'), fill('1'), fill('2')] })).fills.map((f) => f.tid)).toEqual(['3', '1', '2'])
    expect(keepUnchanged(prev, page({ fills: [fill('1')] })).fills.map((f) => f.tid)).toEqual(['1'])
    const bal = page({ balances: [{ assetId: 1, symbol: 'USDC', available: '9', locked: '1', total: '10', usdValue: '10' }] })
    expect(keepUnchanged(prev, bal).balances[0]!.available).toBe('9')
  })

  it("never shares another account's rows, and returns the push itself when nothing is shared", () => {
    const other = page({}, '0x2222222222222222222222222222222222222222')
    const prev = page()
    expect(keepUnchanged(prev, other)).toBe(other)
    expect(keepUnchanged(null, prev)).toBe(prev)
    const fresh = page({ balances: [], openOrders: [], fills: [] })
    expect(keepUnchanged(prev, fresh)).toBe(fresh)
  })
})
