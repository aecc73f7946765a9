import { describe, expect, it } from 'vitest'
import type { AccountReads, CreditLine, MarketInfo } from '../../session/account-reads'
import type { MarketData } from '../../session/market-data'
import { BookTops, previewOrder } from './order-preview'

const ACC = '0x1111111111111111111111111111111111111111'
const AGENT = '0x2222222222222222222222222222222222222222'
const market: MarketInfo = {
  marketId: 1,
  priceDecimals: 2,
  maxPriceSigFigs: 6,
  baseQuantityDecimals: 4,
  quoteBalanceDecimals: 8,
  creditTrading: false,
  baseAssetId: 3,
  quoteAssetId: 1,
  symbol: null,
}
const noCredit: CreditLine = {
  isCredit: false,
  status: null,
  creditUsdAtoms: null,
  availableUsdAtoms: null,
  lastKnownAvailableUsdAtoms: null,
  whitelistedMarketIds: [],
}

function setup(opts: { now?: () => number; agent?: boolean } = {}) {
  let reads = 0
  const now = opts.now ?? (() => 1_000_000)
  const info = {
    l2Book: async () => {
      reads++
      return {
        found: true as const,
        bids: [{ price: '59990.5', quantity: '1.2', order_count: 2 }],
        asks: [{ price: '60010', quantity: '0.5', order_count: 1 }],
        query_time_ms: 1,
        last_update_height: 1,
        last_update_ts_ms: 999_000,
      }
    },
  }
  const books = new BookTops(info as never, now)
  const r: Partial<AccountReads> = {
    markets: async () => [market],
    assets: async () => [
      { assetId: 1, symbol: 'USDC', decimals: 8, withdrawFeeAtoms: 0n },
      { assetId: 3, symbol: 'BTC', decimals: 8, withdrawFeeAtoms: 0n },
    ],
    quoteMinimums: async () => new Map([[1, 1_000_000_000n]]), // 10 USDC
    creditLine: async () => noCredit,
    balances: async () => [{ assetId: 1, available: '20000', locked: '0' }],
    agents: async () => (opts.agent ? [{ slotId: 1, agent: AGENT, epoch: 7n }] : []),
  }
  const md: MarketData = {
    assets: new Map(),
    marks: new Map([
      [3, { usdAtoms: 6_000_000_000_000n, sourceTsMs: 1_000_000 }],
      [1, { usdAtoms: 100_000_000n, sourceTsMs: 1_000_000 }],
    ]),
    oracle: { status: 'available', reasonCode: null },
    fetchedAt: 1_000_000,
    markStaleAfterMs: 60_000,
  }
  const ctx = {
    network: 'n',
    journal: { getState: () => null } as never,
    submitter: null as never,
    reads: r as AccountReads,
    hasOwnerKey: () => true,
    keys: { agentAddress: () => (opts.agent ? AGENT : null) },
  }
  return { ctx, o: { books, marketData: async () => md, now }, reads: () => reads }
}

describe('order preview', () => {
  it('shows the best bid and offer, tick, minimum size and notional, and the exact order value', async () => {
    const { ctx, o } = setup()
    const p = await previewOrder(ctx as never, o, { account: ACC, marketId: '1', side: 'bid', price: '60000.5', quantity: '0.25' })
    expect(p.book).toMatchObject({ bid: { price: '59990.5', size: '1.2' }, ask: { price: '60010', size: '0.5' }, source: 'info' })
    expect(p.market).toMatchObject({ symbol: 'BTC/USDC', tickSize: '0.01', minSize: '0.0001', minNotional: '10' })
    expect(p.value).toBe('15000.125')
    expect(p.available).toEqual({ units: '20000', symbol: 'USDC' })
    expect(p.markPrice).toBe('60000')
    expect(p.problems).toEqual([])
    expect(p.signer).toMatchObject({ role: 'owner', address: ACC })
  })

  it('names what the service would refuse: below the minimum, off tick, over the balance', async () => {
    const { ctx, o } = setup()
    const low = await previewOrder(ctx as never, o, { account: ACC, marketId: '1', side: 'bid', price: '1', quantity: '0.0001' })
    expect(low.problems.join(' ')).toMatch(/below the minimum 10 USDC/)
    const tick = await previewOrder(ctx as never, o, { account: ACC, marketId: '1', side: 'bid', price: '1.001', quantity: '1' })
    expect(tick.problems.join(' ')).toMatch(/not a multiple of 0.01/)
    const big = await previewOrder(ctx as never, o, { account: ACC, marketId: '1', side: 'bid', price: '60000', quantity: '1' })
    expect(big.problems.join(' ')).toMatch(/needs 60,000 USDC, only 20,000 USDC is available/)
  })

  it('names the agent key that signs, and reads the book once per TTL', async () => {
    const { ctx, o, reads } = setup({ agent: true })
    const p = await previewOrder(ctx as never, o, { account: ACC, marketId: '1', side: 'ask' })
    await previewOrder(ctx as never, o, { account: ACC, marketId: '1', side: 'ask', price: '1' })
    expect(p.signer).toMatchObject({ role: 'agent', slot: 1, address: AGENT, owner: ACC })
    expect(reads()).toBe(1)
  })

  it('refuses a book read older than the 30 s limit (StaleData)', async () => {
    let t = 1_000_000
    const { ctx, o } = setup({ now: () => t })
    const books = new BookTops(
      { l2Book: async () => ({ found: true, bids: [], asks: [], last_update_ts_ms: null }) } as never,
      () => t,
      60_000,
    )
    await books.get(1)
    t += 31_000
    await expect(previewOrder(ctx as never, { ...o, books }, { account: ACC, marketId: '1', side: 'bid' })).rejects.toMatchObject({
      code: 'StaleData',
    })
  })
})
