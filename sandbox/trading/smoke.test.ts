import { afterAll, describe, expect, it } from 'vitest'
import { addr, fund, info, makeService, trade } from '../testing/test-kit'

const svc = makeService()
afterAll(() => svc.stop())

describe('smoke', () => {
  it('places, matches and reports', async () => {
    fund(svc, 'alice')
    fund(svc, 'bob')
    const r1 = await trade(svc, 'alice', {
      type: 'order',
      market_id: '1',
      side: 'ask',
      order_type: 'limit',
      tif: 'gtc',
      price: '65000',
      quantity: '0.5',
    })
    expect(r1).toMatchObject({ submission_status: 'accepted', response: { type: 'order', status: { open: { oid: 1 } } } })
    const r2 = await trade(svc, 'bob', {
      type: 'order',
      market_id: '1',
      side: 'buy',
      order_type: 'limit',
      tif: 'ioc',
      price: '65100',
      quantity: '0.2',
    })
    expect(r2).toMatchObject({ submission_status: 'accepted', response: { status: { filled: { total_sz: '0.2', avg_px: '65000' } } } })
    const book = await info(svc, { type: 'l2Book', market_id: 1 })
    expect(book.body.asks).toEqual([{ price: '65000', quantity: '0.3', order_count: 1 }])
    const bal = await info(svc, { type: 'userBalances', user: addr('bob') })
    expect(bal.status).toBe(200)
  })
})
