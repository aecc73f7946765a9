import { describe, expect, it } from 'vitest'
import type { AccountReads, CreditLine, MarketInfo } from '../../session/account-reads'
import { checkOrderTicket } from './orders.service'
import type { WriteContext } from '../../session/write-context'

const ACC = '0x1111111111111111111111111111111111111111'
const market: MarketInfo = {
  marketId: 1,
  priceDecimals: 2,
  maxPriceSigFigs: 6,
  baseQuantityDecimals: 4,
  quoteBalanceDecimals: 8,
  creditTrading: false,
  baseAssetId: 3,
  quoteAssetId: 1,
  symbol: 'BTC/USDC',
}
const noCredit: CreditLine = {
  isCredit: false,
  status: null,
  creditUsdAtoms: null,
  availableUsdAtoms: null,
  lastKnownAvailableUsdAtoms: null,
  whitelistedMarketIds: [],
}

function ctx(line: CreditLine = noCredit, min = 1_000_000_000n): WriteContext {
  const reads: Partial<AccountReads> = {
    markets: async () => [market],
    quoteMinimums: async () => new Map([[1, min]]),
    assets: async () => [{ assetId: 1, symbol: 'USDC', decimals: market.quoteBalanceDecimals, withdrawFeeAtoms: 0n }],
    creditLine: async () => line,
  }
  return { network: 'n', journal: null as never, submitter: null as never, reads: reads as AccountReads, hasOwnerKey: () => true }
}

const t = {
  account: ACC,
  market: 1,
  side: 'buy' as const,
  orderType: 'limit' as const,
  tif: 'gtc' as const,
  price: '60000.5',
  quantity: '0.25',
}

describe('checkOrderTicket', () => {
  it('computes the notional exactly in quote atoms and keeps the strings as typed', async () => {
    const r = await checkOrderTicket(ctx(), t)
    // 60000.50 * 0.2500 = 15000.125 USDC = 1500012500000 atoms at 8 decimals
    expect(r.notionalQuoteAtoms).toBe('1500012500000')
    expect(r.action).toEqual({
      type: 'order',
      market_id: '1',
      side: 'buy',
      order_type: 'limit',
      tif: 'gtc',
      price: '60000.5',
      quantity: '0.25',
    })
    expect(r.warnings).toEqual([])
  })

  it('refuses more decimals than the market allows, zero, and a notional under the quote minimum', async () => {
    await expect(checkOrderTicket(ctx(), { ...t, price: '60000.505' })).rejects.toMatchObject({ code: 'ExcessPrecision' })
    await expect(checkOrderTicket(ctx(), { ...t, quantity: '0.00001' })).rejects.toMatchObject({ code: 'ExcessPrecision' })
    await expect(checkOrderTicket(ctx(), { ...t, quantity: '0' })).rejects.toMatchObject({ code: 'InvalidQuantity' })
    await expect(checkOrderTicket(ctx(), { ...t, price: '-1' })).rejects.toMatchObject({ code: 'NegativeAmount' })
    // The refusal reads in the quote asset's units, never atoms.
    await expect(checkOrderTicket(ctx(undefined, 2_000_000_000_000n), t)).rejects.toMatchObject({
      code: 'MinTradeSpotNtl',
      message: expect.stringMatching(/^order value [0-9,.]+ USDC is below the minimum [0-9,.]+ USDC$/),
    })
    await expect(checkOrderTicket(ctx(), { ...t, tif: 'day' as never })).rejects.toMatchObject({ code: 'InvalidTif' })
  })

  it('warns (does not refuse) above max_price_sig_figs, which the service enforces at execution', async () => {
    const r = await checkOrderTicket(ctx(), { ...t, price: '60000.55' })
    expect(r.warnings[0]).toMatch(/significant figures/)
  })

  it('applies the credit-account market gate and whitelist', async () => {
    const credit = { ...noCredit, isCredit: true, status: 'active' as const }
    await expect(checkOrderTicket(ctx(credit), t)).rejects.toMatchObject({ code: 'CreditTradingDisabled' })
    await expect(checkOrderTicket(ctx({ ...credit, whitelistedMarketIds: ['1'] }), t)).resolves.toBeDefined()
    await expect(checkOrderTicket(ctx({ ...credit, status: 'frozen' }), t)).rejects.toMatchObject({ code: 'SpotCreditAccountFrozen' })
  })
})
