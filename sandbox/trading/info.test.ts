import { afterAll, describe, expect, it } from 'vitest'
import { CHAIN_IDS } from '../../main/core/wire/chains'
import { createTradingService } from './service'
import { addr, fund, info, makeService, trade } from '../testing/test-kit'

const svc = makeService()
afterAll(() => svc.stop())

describe('/info dispatch errors', () => {
  it('malformed body, missing or non-string type: 400 InvalidInfoRequest; unknown type: 400 UnsupportedInfoType', async () => {
    for (const body of ['{', '[]', '{}', '{"type":5}']) {
      const r = await svc.handleInfo(body, 'ip')
      expect(r.status).toBe(400)
      expect((r.body as { error: { code: string } }).error.code).toBe('InvalidInfoRequest')
    }
    const u = await info(svc, { type: 'candles' })
    expect(u).toEqual({ status: 400, body: { error: { code: 'UnsupportedInfoType', message: expect.any(String) } } })
    expect((await info(svc, { type: 'constructor' })).body.error.code).toBe('UnsupportedInfoType')
  })

  it('accepts an already-parsed body too', async () => {
    expect((await svc.handleInfo({ type: 'markets' }, 'ip')).status).toBe(200)
  })

  it('answers 413 over 64 KiB', async () => {
    expect((await svc.handleInfo(JSON.stringify({ type: 'markets', pad: 'x'.repeat(64 * 1024) }), 'ip')).status).toBe(413)
  })
})

describe('reference data', () => {
  it('assets: query_height, app_hash, assets with withdraw fee in display and atoms', async () => {
    const r = (await info(svc, { type: 'assets' })).body
    expect(r.query_height).toEqual(expect.any(Number))
    expect(r.app_hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(r.assets[0]).toEqual({
      asset_id: 1,
      symbol: 'USDC',
      balance_decimals: 8,
      withdraw_fee: '1',
      withdraw_fee_atoms: '100000000',
      issuer: '0x0000000000000000000000000000000000000000',
      credit_ltv: 100,
      credit_ltv_setting: null,
    })
  })

  it('markets: sorted by market_id with the spec fields', async () => {
    const r = (await info(svc, { type: 'markets' })).body
    expect(r.markets.map((m: { market_id: number }) => m.market_id)).toEqual([1, 2])
    expect(r.markets[0]).toMatchObject({
      price_decimals: 2,
      max_price_sig_figs: 6,
      base_quantity_decimals: 5,
      quote_balance_decimals: 8,
      maker_fee_milli_bps: 1000,
      taker_fee_milli_bps: 3500,
      fee_setting: null,
      credit_trading: true,
      credit_trading_setting: null,
    })
  })

  it('quoteAssets, accountingWithdrawTokens, accountingDepositContracts are sorted as specified', async () => {
    const q = (await info(svc, { type: 'quoteAssets' })).body.quote_assets
    expect(q).toEqual([
      { asset_id: 1, symbol: 'USDC', min_quantity: '10', min_quantity_atoms: '1000000000' },
      { asset_id: 2, symbol: 'USDT', min_quantity: '10', min_quantity_atoms: '1000000000' },
    ])
    const w = (await info(svc, { type: 'accountingWithdrawTokens' })).body.withdraw_tokens
    const keys = w.map((x: { chain_id: number; asset_id: number }) => [x.chain_id, x.asset_id])
    expect(keys).toEqual([...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]))
    expect(w[0]).toMatchObject({ min_withdraw_atoms: '200000000', min_withdraw_amt: '2' })
    const d = (await info(svc, { type: 'accountingDepositContracts' })).body.deposit_contracts
    expect(d.map((x: { src_chain_id: number }) => x.src_chain_id)).toEqual([1, 42161])
  })

  it('multisigPolicy: only scope 2 is queryable', async () => {
    expect((await info(svc, { type: 'multisigPolicy', scope: 2 })).body).toEqual({ found: false, scope: 2, scope_name: 'accounting' })
    expect(await info(svc, { type: 'multisigPolicy', scope: 1 })).toMatchObject({
      status: 400,
      body: { error: { code: 'InvalidMultisigScope' } },
    })
    expect(await info(svc, { type: 'multisigPolicy' })).toMatchObject({ status: 400, body: { error: { code: 'InvalidMultisigScope' } } })
  })

  it('queryStatus: all null before the first block, then the head and the retained window', async () => {
    const s = createTradingService({ chainId: CHAIN_IDS.sandbox, blockMs: 0, rateLimits: false })
    const before = (await info(s, { type: 'queryStatus' })).body
    expect(Object.values(before).every((v) => v === null)).toBe(true)
    s.produceBlock()
    s.produceBlock()
    expect((await info(s, { type: 'queryStatus' })).body).toMatchObject({
      query_height: 2,
      earliest_retained_height: 1,
      latest_retained_height: 2,
      retained_window_blocks: 10000,
      query_time_ms: expect.any(Number),
    })
  })
})

describe('l2Book', () => {
  it('unknown market: found false and no bids/asks keys; malformed id: 400 InvalidMarketId', async () => {
    const r = (await info(svc, { type: 'l2Book', market_id: 77 })).body
    expect(r.found).toBe(false)
    expect('bids' in r || 'asks' in r).toBe(false)
    expect(await info(svc, { type: 'l2Book', market_id: 'btc' })).toMatchObject({
      status: 400,
      body: { error: { code: 'InvalidMarketId' } },
    })
  })

  it('depth defaults to 20 and is capped at 100 levels', async () => {
    const s = makeService()
    fund(s, 'alice')
    for (let b = 0; b < 12; b++) {
      const items = Array.from({ length: 10 }, (_, i) => ({
        type: 'order' as const,
        market_id: '1',
        side: 'ask' as const,
        order_type: 'limit' as const,
        tif: 'gtc' as const,
        price: String(65000 + b * 10 + i),
        quantity: '0.001',
      }))
      await trade(s, 'alice', { type: 'batch', items })
    }
    expect((await info(s, { type: 'l2Book', market_id: 1 })).body.asks).toHaveLength(20)
    expect((await info(s, { type: 'l2Book', market_id: 1, depth: 500 })).body.asks).toHaveLength(100)
    expect((await info(s, { type: 'l2Book', market_id: 1, depth: 5 })).body.asks[4]).toEqual({
      price: '65004',
      quantity: '0.001',
      order_count: 1,
    })
    expect(s.l2Book('1')?.levels[1]).toHaveLength(10)
    await s.stop()
  })
})

describe('fills queries', () => {
  it('userFills parameter rules: 400 without a fills key vs in-band errors with an empty list', async () => {
    const u = addr('alice')
    const missing = await info(svc, { type: 'userFills', user: u })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({ error: { code: 'InvalidFillsQuery', message: expect.any(String) } })
    expect((await info(svc, { type: 'userFills', user: u, limit: 'ten' })).status).toBe(400)
    expect((await info(svc, { type: 'userFills', user: u, limit: 2 ** 32 })).status).toBe(400)
    const zero = await info(svc, { type: 'userFills', user: u, limit: 0 })
    expect(zero).toMatchObject({ status: 200, body: { fills: [], error: { code: 'InvalidFillsQuery' } } })
    const h = svc.head().height
    expect((await info(svc, { type: 'userFills', user: u, limit: 5, from_height: h, to_height: h - 1 })).body).toMatchObject({
      fills: [],
      error: { code: 'InvalidFillsQuery' },
    })
    expect((await info(svc, { type: 'userFills', user: u, limit: 5, from_height: 1, to_height: 20_000 })).body).toMatchObject({
      fills: [],
      error: { code: 'HistoryWindowExceeded' },
    })
    const capped = (await info(svc, { type: 'userFills', user: u, limit: 9000 })).body
    expect(capped).toMatchObject({ limit: 500, requested_limit: 9000, max_limit: 500, fills: [] })
  })

  it('userFillsByTime: start_time_ms required; inclusive bound repeats the last fill when paging', async () => {
    const s = makeService()
    fund(s, 'alice')
    fund(s, 'bob')
    const ask = {
      type: 'order' as const,
      market_id: '1',
      side: 'ask' as const,
      order_type: 'limit' as const,
      tif: 'gtc' as const,
      price: '65000',
      quantity: '0.01',
    }
    await trade(s, 'alice', { type: 'batch', items: [ask, ask, ask] })
    await trade(s, 'bob', { ...ask, side: 'bid', quantity: '0.02' })
    await trade(s, 'bob', { ...ask, side: 'bid', quantity: '0.01' })
    expect(await info(s, { type: 'userFillsByTime', user: addr('bob') })).toMatchObject({
      status: 400,
      body: { error: { code: 'InvalidFillsQuery' } },
    })
    const all = (await info(s, { type: 'userFillsByTime', user: addr('bob'), start_time_ms: 0 })).body.fills
    expect(all).toHaveLength(3)
    expect(all.map((f: { tid: number }) => f.tid)).toEqual([...all.map((f: { tid: number }) => f.tid)].sort((a, b) => a - b))
    const last = all[all.length - 1]
    const next = (await info(s, { type: 'userFillsByTime', user: addr('bob'), start_time_ms: last.time })).body.fills
    expect(next.map((f: { tid: number }) => f.tid)).toContain(last.tid)
    const snapshot = s.recentFills(addr('bob'))
    expect(snapshot.map((f) => f.tid)).toEqual(all.map((f: { tid: number }) => f.tid))
    expect(snapshot[0]).toMatchObject({ coin: '1', side: 'B', crossed: true, feeToken: '3' })
    await s.stop()
  })
})

describe('allMids and bbo snapshots', () => {
  it('mid carries one more decimal than price_decimals; only two-sided markets', async () => {
    const s = makeService()
    fund(s, 'alice')
    const o = { type: 'order' as const, market_id: '1', order_type: 'limit' as const, tif: 'gtc' as const, quantity: '0.01' }
    await trade(s, 'alice', { ...o, side: 'ask', price: '65000.5' })
    expect(s.allMids().mids).toEqual({})
    await trade(s, 'alice', { ...o, side: 'bid', price: '64000' })
    expect(s.allMids().mids).toEqual({ '1': '64500.250' })
    expect(s.bbo('1')?.bbo).toEqual([
      { px: '64000', sz: '0.01', n: 1 },
      { px: '65000.5', sz: '0.01', n: 1 },
    ])
    expect(s.bbo('2')?.bbo).toEqual([null, null])
    expect(s.bbo('9')).toBeNull()
    expect(s.marketExists('1')).toBe(true)
    expect(s.marketExists('01')).toBe(false)
    expect(s.openOrders(addr('alice')).orders).toHaveLength(2)
    await s.stop()
  })
})
