import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAgent } from '../../../../sandbox/scenario/dev-keys'
import { cancelAllInMarket, cancelOrder, emergencyCancelAll, placeOrder } from '../../../testing/direct-writes'
import { O0, startWriteSideOnSandbox, type WriteSideOnSandbox } from '../../../testing/write-side-on-sandbox'
import { checkOrderTicket } from './orders.service'

/**
 * Order writes against the sandbox: the ticket check, place with the agent key, cancels, the emergency cancel, a per-order failure.
 * Its own seeded sandbox and write side (main/testing/write-side-on-sandbox.ts).
 */
let t: WriteSideOnSandbox
beforeAll(async () => {
  t = await startWriteSideOnSandbox()
})
afterAll(async () => {
  await t?.stop()
})

describe('orders against the sandbox', () => {
  it('checks a ticket with the market precision and refuses extra decimals', async () => {
    await expect(
      checkOrderTicket(t.session.ctx, {
        account: O0,
        market: 1,
        side: 'bid',
        orderType: 'limit',
        tif: 'gtc',
        price: '50000.123456789',
        quantity: '0.01',
      }),
    ).rejects.toMatchObject({
      code: 'ExcessPrecision',
    })
    await expect(
      checkOrderTicket(t.session.ctx, {
        account: O0,
        market: 1,
        side: 'bid',
        orderType: 'limit',
        tif: 'gtc',
        price: '1',
        quantity: '0.0001',
      }),
    ).rejects.toMatchObject({
      code: 'MinTradeSpotNtl',
    })
    await expect(
      checkOrderTicket(t.session.ctx, { account: O0, market: 99, side: 'bid', orderType: 'limit', tif: 'gtc', price: '1', quantity: '1' }),
    ).rejects.toMatchObject({ code: 'UnknownMarket' })
  })

  it('places with the agent key and its epoch, cancels by oid, cancels all, and the emergency cancel clears every market', async () => {
    const placed = await placeOrder(t.session.ctx, {
      account: O0,
      market: 1,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '40000',
      quantity: '0.01',
    })
    expect(placed.leaves[0]).toMatchObject({ kind: 'open' })
    const entry = t.journal.get(placed.outcome.journalId)!
    expect(entry.signer).toBe(devAgent(0).address.toLowerCase())
    expect(JSON.parse(entry.body).agent_epoch).toBeDefined()
    const oid = placed.leaves[0]!.kind === 'open' ? placed.leaves[0]!.oid : ''
    const c = await cancelOrder(t.session.ctx, { account: O0, market: 1, oid })
    expect(c.leaves[0]).toMatchObject({ kind: 'cancelled', oid })
    await placeOrder(t.session.ctx, {
      account: O0,
      market: 1,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '40001',
      quantity: '0.01',
    })
    const all = await cancelAllInMarket(t.session.ctx, { account: O0, market: 1 })
    expect(all.leaves.length).toBeGreaterThanOrEqual(1)
    expect(all.leaves.every((l) => l.kind === 'cancelled')).toBe(true)
    await placeOrder(t.session.ctx, {
      account: O0,
      market: 1,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '40002',
      quantity: '0.01',
    })
    const e = await emergencyCancelAll(t.session.ctx, { account: O0 })
    expect(e.markets.length).toBeGreaterThanOrEqual(1)
    expect(e.failures).toEqual([])
    expect(e.remaining).toEqual([])
  })

  it('reports a per-order failure from the leaf while the write is accepted', async () => {
    const r = await placeOrder(t.session.ctx, {
      account: O0,
      market: 1,
      side: 'bid',
      orderType: 'limit',
      tif: 'ioc',
      price: '1000',
      quantity: '0.5',
    })
    expect(r.outcome.state).toBe('accepted')
    expect(r.leaves[0]).toMatchObject({ kind: 'error', code: 'ioccancel' })
  })
})
