import { afterAll, describe, expect, it } from 'vitest'
import type { OrderAction, TradeAction } from '../../main/core/wire/actions'
import { addr, BTC, cloid, fund, info, makeService, ONE, trade, USDC, type Who } from '../testing/test-kit'
import type { BlockEvents, TradingService } from './types'

const services: TradingService[] = []
afterAll(async () => {
  for (const s of services) await s.stop()
})
function fresh(): TradingService {
  const s = makeService()
  services.push(s)
  fund(s, 'alice')
  fund(s, 'bob')
  return s
}

function order(side: 'bid' | 'ask' | 'buy' | 'sell', price: string, quantity: string, extra: Partial<OrderAction> = {}): OrderAction {
  return { type: 'order', market_id: '1', side, order_type: 'limit', tif: 'gtc', price, quantity, ...extra }
}

function bal(s: TradingService, who: Who, asset: number) {
  return s.balances(addr(who)).find((b) => b.assetId === asset) ?? { assetId: asset, available: 0n, locked: 0n }
}

function collect(s: TradingService): BlockEvents[] {
  const out: BlockEvents[] = []
  s.onBlock((b) => {
    if (b.trades.length || b.orderUpdates.length || b.fills.length) out.push(b)
  })
  return out
}

describe('placement and matching', () => {
  it('rests a gtc order (leaf open), locks its funds and shows it in the book and openOrders', async () => {
    const s = fresh()
    const r = await trade(s, 'alice', order('ask', '65000', '0.5', { cloid: cloid(1) }))
    expect(r).toMatchObject({
      submission_status: 'accepted',
      response: { type: 'order', status: { open: { oid: expect.any(Number), cloid: cloid(1) } } },
    })
    expect(r.tx_hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(bal(s, 'alice', BTC)).toEqual({ assetId: BTC, available: 100n * ONE - 50_000_000n, locked: 50_000_000n })
    const book = (await info(s, { type: 'l2Book', market_id: '1' })).body
    expect(book).toMatchObject({ found: true, bids: [], asks: [{ price: '65000', quantity: '0.5', order_count: 1 }] })
    expect(book.last_update_height).toBeGreaterThan(0)
    const oo = (await info(s, { type: 'openOrders', user: addr('alice'), market_id: 1 })).body
    expect(oo).toMatchObject({ market_id: 1, truncated: false })
    expect(oo.orders[0]).toMatchObject({
      cloid: cloid(1),
      original_qty: '0.5',
      filled_qty: '0',
      remaining_qty: '0.5',
      owner_index: expect.any(Number),
    })
    expect(oo.orders[0].tif).toBeUndefined()
  })

  it('fills a crossing order at the maker price with milli-bps fees on both sides', async () => {
    const s = fresh()
    const events = collect(s)
    const maker = await trade(s, 'alice', order('ask', '65000', '0.5', { cloid: cloid(2) }))
    const makerOid = (maker.response as { status: { open: { oid: number } } }).status.open.oid
    const usdcBefore = bal(s, 'bob', USDC).available
    const r = await trade(s, 'bob', order('buy', '65100', '0.2', { tif: 'ioc', cloid: cloid(3) }))
    expect(r.response).toMatchObject({ type: 'order', status: { filled: { total_sz: '0.2', avg_px: '65000', cloid: cloid(3) } } })
    // bob paid 13000 USDC at the maker price (the 65100 limit refunds the difference) and got 0.2 BTC less the 3.5 bps taker fee
    expect(bal(s, 'bob', USDC)).toEqual({ assetId: USDC, available: usdcBefore - 13_000n * ONE, locked: 0n })
    expect(bal(s, 'bob', BTC).available).toBe(100n * ONE + 20_000_000n - 7_000n)
    // alice received 13000 USDC less the 1 bps maker fee; 0.3 BTC stays locked
    expect(bal(s, 'alice', USDC).available).toBe(1_000_000n * ONE + 13_000n * ONE - 130_000_000n)
    expect(bal(s, 'alice', BTC).locked).toBe(30_000_000n)
    expect(s.balances(s.feeAccount).find((b) => b.assetId === BTC)?.available).toBe(7_000n)

    const st = (await info(s, { type: 'orderStatus', oid: makerOid })).body
    expect(st).toMatchObject({
      found: true,
      status: 'partiallyfilledresting',
      filled_qty: '0.2',
      remaining_qty: '0.3',
      tif: 'gtc',
      order_type: 'limit',
    })

    const bobFills = (await info(s, { type: 'userFills', user: addr('bob'), limit: 10 })).body
    const aliceFills = (await info(s, { type: 'userFills', user: addr('alice'), limit: 10 })).body
    expect(bobFills.fills).toHaveLength(1)
    expect(bobFills.fills[0]).toMatchObject({
      side: 'B',
      fee_asset_id: BTC,
      fee: '0.00007',
      fee_mode: 'balance',
      crossed: true,
      px: '65000',
      sz: '0.2',
    })
    expect(aliceFills.fills[0]).toMatchObject({ side: 'A', fee_asset_id: USDC, fee: '1.3', fee_mode: 'balance', crossed: false })
    expect(aliceFills.fills[0].tid).toBe(bobFills.fills[0].tid)
    expect(bobFills).toMatchObject({ limit: 10, requested_limit: 10, max_limit: 500 })

    const block = events.find((b) => b.trades.length > 0)!
    expect(block.trades[0]).toMatchObject({ coin: '1', side: 'B', px: '65000', sz: '0.2', users: [addr('bob'), addr('alice')] })
    expect(block.fills.map((f) => f.user).sort()).toEqual([addr('alice'), addr('bob')].sort())
    expect(block.fills[0]!.fill.tid).toBe(block.trades[0]!.tid)
    const makerUpdate = block.orderUpdates.find((u) => u.user === addr('alice'))!
    expect(makerUpdate.update).toMatchObject({ status: 'open', order: { sz: '0.3', origSz: '0.5', oid: makerOid } })
    const takerUpdate = block.orderUpdates.find((u) => u.user === addr('bob'))!
    expect(takerUpdate.update).toMatchObject({ status: 'filled', order: { sz: '0', origSz: '0.2' } })
    expect(block.touchedMarkets.has('1')).toBe(true)
    expect(s.spotState(addr('alice')).balances.find((b) => b.token === BTC)).toEqual({
      coin: 'BTC',
      token: BTC,
      total: '99.8',
      hold: '0.3',
    })
  })

  it('walks the book best price first and reports the average price', async () => {
    const s = fresh()
    await trade(s, 'alice', order('ask', '65000', '0.1'))
    await trade(s, 'alice', order('ask', '65100', '0.1'))
    const r = await trade(s, 'bob', order('bid', '65200', '0.2'))
    expect(r.response).toMatchObject({ status: { filled: { total_sz: '0.2', avg_px: '65050' } } })
  })

  it('ioc with nothing to fill: ioccancel leaf, status record, iocCancelRejected update', async () => {
    const s = fresh()
    const events = collect(s)
    const r = await trade(s, 'bob', order('bid', '60000', '0.2', { tif: 'ioc', cloid: cloid(4) }))
    expect(r).toMatchObject({ submission_status: 'accepted', response: { status: { error: 'ioccancel' } } })
    const st = (await info(s, { type: 'orderStatus', user: addr('bob'), market_id: 1, cloid: cloid(4) })).body
    expect(st).toMatchObject({ found: true, status: 'ioccancel', filled_qty: '0', tif: 'ioc' })
    expect(events.flatMap((b) => b.orderUpdates).map((u) => u.update.status)).toContain('iocCancelRejected')
    expect(bal(s, 'bob', USDC).locked).toBe(0n)
  })

  it('fok that cannot fill in full: fokcancel, nothing trades', async () => {
    const s = fresh()
    await trade(s, 'alice', order('ask', '65000', '0.1'))
    const r = await trade(s, 'bob', order('bid', '65000', '0.2', { tif: 'fok' }))
    expect(r.response).toMatchObject({ status: { error: 'fokcancel' } })
    expect((await info(s, { type: 'l2Book', market_id: 1 })).body.asks).toEqual([{ price: '65000', quantity: '0.1', order_count: 1 }])
    const ok = await trade(s, 'bob', order('bid', '65000', '0.1', { tif: 'fok' }))
    expect(ok.response).toMatchObject({ status: { filled: { total_sz: '0.1' } } })
  })

  it('alo that would cross: badalopx; a passive alo rests', async () => {
    const s = fresh()
    await trade(s, 'alice', order('ask', '65000', '0.1'))
    expect((await trade(s, 'bob', order('bid', '65000', '0.1', { tif: 'alo' }))).response).toMatchObject({ status: { error: 'badalopx' } })
    expect((await trade(s, 'bob', order('bid', '64000', '0.1', { tif: 'alo' }))).response).toMatchObject({ status: { open: {} } })
  })

  it('market orders: no liquidity gives marketordernoliquidity; otherwise fill up to the protection price', async () => {
    const s = fresh()
    expect((await trade(s, 'bob', order('bid', '66000', '0.1', { order_type: 'market', tif: 'ioc' }))).response).toMatchObject({
      status: { error: 'marketordernoliquidity' },
    })
    await trade(s, 'alice', order('ask', '65000', '0.1'))
    await trade(s, 'alice', order('ask', '67000', '0.1'))
    const r = await trade(s, 'bob', order('bid', '66000', '0.2', { order_type: 'market', tif: 'ioc' }))
    expect(r.response).toMatchObject({ status: { filled: { total_sz: '0.1', avg_px: '65000' } } })
  })

  it('self-trade prevention cancels the incoming order after its earlier fills', async () => {
    const s = fresh()
    await trade(s, 'bob', order('ask', '65000', '0.1'))
    await trade(s, 'alice', order('ask', '65100', '0.1'))
    const r = await trade(s, 'alice', order('bid', '65200', '0.3', { cloid: cloid(5) }))
    expect(r.response).toMatchObject({ status: { error: 'selftradepreventioncancel' } })
    const st = (await info(s, { type: 'orderStatus', user: addr('alice'), market_id: 1, cloid: cloid(5) })).body
    expect(st).toMatchObject({ status: 'selftradepreventioncancel', filled_qty: '0.1' })
    expect((await info(s, { type: 'l2Book', market_id: 1 })).body.asks).toEqual([{ price: '65100', quantity: '0.1', order_count: 1 }])
    expect(bal(s, 'alice', USDC).locked).toBe(0n)
  })
})

describe('order validation', () => {
  it('tick (price beyond max_price_sig_figs or zero) and lotsize (zero size) are leaves without an order', async () => {
    const s = fresh()
    const r = await trade(s, 'alice', order('ask', '65000.01', '0.5', { cloid: cloid(6) }))
    expect(r).toMatchObject({ submission_status: 'accepted', response: { status: { error: 'tick' } } })
    expect((await info(s, { type: 'orderStatus', user: addr('alice'), market_id: 1, cloid: cloid(6) })).body.found).toBe(false)
    expect((await trade(s, 'alice', order('ask', '65000', '0'))).response).toMatchObject({ status: { error: 'lotsize' } })
  })

  it('minimum notional: MinTradeSpotNtl at admission, mintradespotntl inside a batch', async () => {
    const s = fresh()
    const r = await trade(s, 'alice', order('ask', '65000', '0.0001'))
    expect(r).toMatchObject({ submission_status: 'rejected', error: { code: 'MinTradeSpotNtl' } })
    expect(r.tx_hash).toBeDefined()
    const b = await trade(s, 'alice', { type: 'batch', items: [order('ask', '65000', '0.0001'), order('ask', '65000', '0.01')] })
    expect(b.response).toMatchObject({
      type: 'batch',
      statuses: [
        { type: 'order', status: { error: 'mintradespotntl' } },
        { type: 'order', status: { open: {} } },
      ],
    })
  })

  it('insufficient balance: InsufficientSpotBalance at admission, insufficientspotbalance inside a batch', async () => {
    const s = fresh()
    expect((await trade(s, 'alice', order('ask', '65000', '101'))).error?.code).toBe('InsufficientSpotBalance')
    const b = await trade(s, 'alice', { type: 'batch', items: [order('ask', '65000', '101')] })
    expect(b.response).toMatchObject({ statuses: [{ status: { error: 'insufficientspotbalance' } }] })
  })

  it('unknown market: marketnotfound leaf', async () => {
    const s = fresh()
    expect((await trade(s, 'alice', { ...order('ask', '1', '1'), market_id: '99' })).response).toMatchObject({
      status: { error: 'marketnotfound' },
    })
  })

  it('refuses a cloid already used by an open order of the owner in that market (DuplicateCloid)', async () => {
    const s = fresh()
    await trade(s, 'alice', order('ask', '65000', '0.1', { cloid: cloid(7) }))
    expect((await trade(s, 'alice', order('ask', '65000', '0.1', { cloid: cloid(7) }))).error?.code).toBe('DuplicateCloid')
  })

  it('1000 open orders per market per account; the 1001st gives accountopenorderlimit; openOrders truncates at 500', async () => {
    const s = fresh()
    const ten = (): TradeAction => ({ type: 'batch', items: Array.from({ length: 10 }, () => order('ask', '65000', '0.001')) })
    for (let i = 0; i < 100; i++) expect((await trade(s, 'alice', ten())).submission_status).toBe('accepted')
    const r = await trade(s, 'alice', { type: 'batch', items: [order('ask', '65000', '0.001')] })
    expect(r.response).toMatchObject({ statuses: [{ status: { error: 'accountopenorderlimit' } }] })
    const oo = (await info(s, { type: 'openOrders', user: addr('alice'), market_id: -1 })).body
    expect(oo.orders).toHaveLength(500)
    expect(oo.truncated).toBe(true)
    expect(oo.market_id).toBe(-1)
    expect(oo.orders[0].market_id).toBe(1)
  })

  it('100 fills per order; more gives maxfillsexceeded and the remainder is not placed', async () => {
    const s = fresh()
    for (let i = 0; i < 11; i++) {
      await trade(s, 'bob', { type: 'batch', items: Array.from({ length: 10 }, () => order('ask', '65000', '0.001')) })
    }
    const r = await trade(s, 'alice', order('bid', '65000', '0.2', { cloid: cloid(8) }))
    expect(r.response).toMatchObject({ status: { error: 'maxfillsexceeded' } })
    const st = (await info(s, { type: 'orderStatus', user: addr('alice'), market_id: 1, cloid: cloid(8) })).body
    expect(st.filled_qty).toBe('0.1')
    expect((await info(s, { type: 'l2Book', market_id: 1 })).body.asks[0]).toEqual({ price: '65000', quantity: '0.01', order_count: 10 })
  })
})

describe('cancel, cancelAll, modify, batch', () => {
  it('cancels by oid or by cloid; missingorder for unknown or foreign orders', async () => {
    const s = fresh()
    const a = await trade(s, 'alice', order('ask', '65000', '0.1', { cloid: cloid(10) }))
    const oid = (a.response as { status: { open: { oid: number } } }).status.open.oid
    expect((await trade(s, 'bob', { type: 'cancel', market_id: '1', oid: String(oid) })).response).toMatchObject({
      type: 'cancel',
      status: { error: 'missingorder' },
    })
    const c = await trade(s, 'alice', { type: 'cancel', market_id: '1', cloid: cloid(10) })
    expect(c.response).toEqual({ type: 'cancel', status: { cancelled: { oid, cloid: cloid(10) } } })
    expect(bal(s, 'alice', BTC).locked).toBe(0n)
    expect((await info(s, { type: 'orderStatus', oid })).body).toMatchObject({ status: 'cancelled', remaining_qty: '0' })
    expect((await trade(s, 'alice', { type: 'cancel', market_id: '1', oid: String(oid) })).response).toMatchObject({
      status: { error: 'missingorder' },
    })
  })

  it('cancelAll: one leaf per cancelled order, empty for none, marketnotfound for an unknown market; other markets untouched', async () => {
    const s = fresh()
    s.deposit(addr('alice'), 4, 10n * ONE)
    await trade(s, 'alice', order('ask', '65000', '0.1'))
    await trade(s, 'alice', order('ask', '65001', '0.1'))
    await trade(s, 'alice', { ...order('ask', '3200', '1'), market_id: '2' })
    await trade(s, 'bob', order('ask', '65002', '0.1'))
    const r = await trade(s, 'alice', { type: 'cancelAll', market_id: '1' })
    expect(r.response).toMatchObject({ type: 'cancelAll', statuses: [{ cancelled: {} }, { cancelled: {} }] })
    expect((await trade(s, 'alice', { type: 'cancelAll', market_id: '1' })).response).toEqual({ type: 'cancelAll', statuses: [] })
    expect((await trade(s, 'alice', { type: 'cancelAll', market_id: '99' })).response).toEqual({
      type: 'cancelAll',
      statuses: [{ error: 'marketnotfound' }],
    })
    expect((await info(s, { type: 'openOrders', user: addr('alice'), market_id: 2 })).body.orders).toHaveLength(1)
    expect((await info(s, { type: 'openOrders', user: addr('bob'), market_id: 1 })).body.orders).toHaveLength(1)
  })

  it('modify cancels the old order and places the replacement atomically', async () => {
    const s = fresh()
    const a = await trade(s, 'alice', order('ask', '65000', '0.1', { cloid: cloid(11) }))
    const oid = (a.response as { status: { open: { oid: number } } }).status.open.oid
    const m = await trade(s, 'alice', {
      type: 'modify',
      market_id: '1',
      oid: String(oid),
      replacement: { side: 'ask', order_type: 'limit', tif: 'gtc', price: '66000', quantity: '0.2', cloid: cloid(12) },
    })
    expect(m.response).toMatchObject({ type: 'modify', status: { open: { cloid: cloid(12) } } })
    expect((await info(s, { type: 'orderStatus', oid })).body.status).toBe('cancelled')
    expect((await info(s, { type: 'l2Book', market_id: 1 })).body.asks).toEqual([{ price: '66000', quantity: '0.2', order_count: 1 }])
    expect(bal(s, 'alice', BTC).locked).toBe(20_000_000n)
    // a replacement failing validation leaves the old order in place
    const bad = await trade(s, 'alice', {
      type: 'modify',
      market_id: '1',
      cloid: cloid(12),
      replacement: { side: 'ask', order_type: 'limit', tif: 'gtc', price: '66000', quantity: '500' },
    })
    expect(bad.response).toMatchObject({ status: { error: 'insufficientspotbalance' } })
    expect((await info(s, { type: 'l2Book', market_id: 1 })).body.asks).toEqual([{ price: '66000', quantity: '0.2', order_count: 1 }])
    expect(
      (
        await trade(s, 'alice', {
          type: 'modify',
          market_id: '1',
          oid: '424242',
          replacement: { side: 'ask', order_type: 'limit', tif: 'gtc', price: '1', quantity: '1' },
        })
      ).response,
    ).toMatchObject({ status: { error: 'missingorder' } })
  })

  it('batch: one sub-response per item in order; cancelAll nests bare leaves', async () => {
    const s = fresh()
    await trade(s, 'alice', order('ask', '65000', '0.1'))
    const r = await trade(s, 'alice', {
      type: 'batch',
      items: [
        { type: 'cancelAll', market_id: '1' },
        order('ask', '65500', '0.1', { cloid: cloid(13) }),
        { type: 'cancel', market_id: '1', cloid: cloid(13) },
        { type: 'cancel', market_id: '1', oid: '999' },
      ],
    })
    expect(r.response).toMatchObject({
      type: 'batch',
      statuses: [
        { type: 'cancelAll', statuses: [{ cancelled: {} }] },
        { type: 'order', status: { open: { cloid: cloid(13) } } },
        { type: 'cancel', status: { cancelled: { cloid: cloid(13) } } },
        { type: 'cancel', status: { error: 'missingorder' } },
      ],
    })
  })
})

describe('orderStatus and txStatusByCloid queries', () => {
  it('parameter errors: InvalidOrderStatusQuery, InvalidMarketId, InvalidCloid (400)', async () => {
    const s = fresh()
    expect(await info(s, { type: 'orderStatus' })).toMatchObject({ status: 400, body: { error: { code: 'InvalidOrderStatusQuery' } } })
    expect(await info(s, { type: 'orderStatus', oid: 'abc' })).toMatchObject({
      status: 400,
      body: { error: { code: 'InvalidOrderStatusQuery' } },
    })
    expect(await info(s, { type: 'orderStatus', user: addr('alice'), market_id: 'x', cloid: cloid(1) })).toMatchObject({
      status: 400,
      body: { error: { code: 'InvalidMarketId' } },
    })
    expect(await info(s, { type: 'orderStatus', user: addr('alice'), market_id: 1, cloid: '0x1' })).toMatchObject({
      status: 400,
      body: { error: { code: 'InvalidCloid' } },
    })
    expect((await info(s, { type: 'orderStatus', oid: 123456 })).body).toEqual({ found: false, status: null })
  })

  it('txStatusByCloid finds the latest transaction of the authority for a cloid; a counterparty cannot', async () => {
    const s = fresh()
    await trade(s, 'alice', order('ask', '65000', '0.1', { cloid: cloid(20) }))
    const r = (await info(s, { type: 'txStatusByCloid', user: addr('alice'), cloid: cloid(20) })).body
    expect(r).toMatchObject({ found: true, status: 'success', action_type: 'order' })
    expect((await info(s, { type: 'txStatusByCloid', user: addr('bob'), cloid: cloid(20) })).body).toMatchObject({ found: false })
    expect(await info(s, { type: 'txStatusByCloid', user: addr('bob'), cloid: 'zz' })).toMatchObject({
      status: 400,
      body: { error: { code: 'InvalidCloid' } },
    })
  })
})
