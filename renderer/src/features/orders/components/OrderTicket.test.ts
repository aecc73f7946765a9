// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { MarketView } from '../../../../../main/contract/types'
import { seriousA11yViolations } from '../../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../../testing/fake-desk'
import { CASH, account, submission } from '../../../testing/fixtures'
import { mountScreen } from '../../../testing/mount'
import { useAccountsStore } from '../../accounts'
import OrderTicket from './OrderTicket.vue'

let desk: FakeDesk
const MARKET: MarketView = {
  marketId: '2',
  symbol: 'ETH/USDC',
  priceDecimals: 2,
  baseQuantityDecimals: 4,
  baseAssetId: 3,
  quoteAssetId: 1,
  creditTrading: false,
}
const PHRASE = 'BUY MARKET 2 AT 34505'

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('policy.show', () => ({
    network: 'sandbox',
    coolingOffMs: 60_000,
    sandboxDefaults: true,
    rules: [],
    halted: null,
    addresses: [],
    events: [],
  }))
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})
const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)

describe('OrderTicket', () => {
  it('a price-band refusal asks for the typed phrase, then resends the same order with the override', async () => {
    const { wrapper: w } = await mountScreen(OrderTicket, { props: { account: account(CASH, 'balance', 'cash-1') } })
    useAccountsStore().markets = [MARKET]
    await flush()
    await w.get('select[aria-label="Market"]').setValue('2')
    await w.get('input[aria-label="Limit price"]').setValue('34505')
    await w.get('input[aria-label="Quantity"]').setValue('0.01')
    desk.fail('orders.place', {
      code: 'PriceOutsideBand',
      message: `a buy at 34505 is more than 5% above the reference 3450.5: refused before signing. To place it anyway, confirm knowingly by typing: ${PHRASE}`,
      details: {
        code: 'PriceOutsideBand',
        band: '5',
        marketId: 2,
        reference: '3450.5',
        referenceSource: 'best ask in the book',
        confirmText: PHRASE,
      },
    })
    button('Place order')!.click()
    await flush()
    expect(w.get('[data-testid="refusal-facts"]').text()).toContain('Reference3450.5 (best ask in the book)')
    expect(w.get('[data-testid="band-phrase"]').text()).toBe(PHRASE)
    expect(await seriousA11yViolations()).toEqual([])
    const place = () => button('Place order outside the band')!
    expect(place().disabled).toBe(true)
    await w.get('input[aria-label="Override phrase"]').setValue('BUY MARKET 2 AT 3450')
    expect(place().disabled).toBe(true)
    await w.get('input[aria-label="Override phrase"]').setValue(PHRASE)
    expect(place().disabled).toBe(false)
    desk.handle('orders.place', () => ({
      submission: submission({ actionType: 'order', state: 'accepted', outcome: 'success' }),
      leaves: [{ kind: 'open', code: null, oid: '9' }],
    }))
    place().click()
    await flush()
    const calls = desk.callsTo('orders.place')
    expect(calls).toHaveLength(2)
    expect(calls[1]).toEqual({
      account: CASH,
      marketId: '2',
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '34505',
      quantity: '0.01',
      override: { priceBand: true, confirmText: PHRASE },
    })
    expect(w.find('[data-testid="band-phrase"]').exists()).toBe(false)
    expect(w.get('[aria-label="Order result"]').text()).toContain('open oid 9')
    expect(button('Place order')!.disabled).toBe(true) // quantity cleared: no second order by a second click
    w.unmount()
  })

  it('a fill-or-kill order closed by the exchange (fokcancel) says it may still have traded, never that nothing traded', async () => {
    const { wrapper: w } = await mountScreen(OrderTicket, { props: { account: account(CASH, 'balance', 'cash-1') } })
    useAccountsStore().markets = [MARKET]
    await flush()
    await w.get('select[aria-label="Market"]').setValue('2')
    await w.get('select[aria-label="Time in force"]').setValue('fok')
    await w.get('input[aria-label="Limit price"]').setValue('3450')
    await w.get('input[aria-label="Quantity"]').setValue('0.01')
    desk.handle('orders.place', () => ({
      submission: submission({ actionType: 'order', state: 'accepted', outcome: 'success', code: 'fokcancel' }),
      leaves: [{ kind: 'error', code: 'fokcancel', oid: null }],
    }))
    button('Place order')!.click()
    await flush()
    expect(desk.callsTo('orders.place')[0]).toMatchObject({ tif: 'fok' })
    const result = w.get('[aria-label="Order result"]').text()
    expect(result).toContain('fokcancel')
    expect(result).toMatch(/may still have traded/)
    expect(result).not.toMatch(/nothing traded/i)
    w.unmount()
  })

  it('editing the ticket drops the override (the phrase belongs to the order that was refused)', async () => {
    const { wrapper: w } = await mountScreen(OrderTicket, { props: { account: account(CASH, 'balance', 'cash-1') } })
    useAccountsStore().markets = [MARKET]
    await flush()
    await w.get('select[aria-label="Market"]').setValue('2')
    await w.get('input[aria-label="Limit price"]').setValue('34505')
    await w.get('input[aria-label="Quantity"]').setValue('0.01')
    desk.fail('orders.place', {
      code: 'PriceOutsideBand',
      message: 'outside',
      details: { band: '5', reference: '3450.5', confirmText: PHRASE },
    })
    button('Place order')!.click()
    await flush()
    expect(w.find('[data-testid="band-phrase"]').exists()).toBe(true)
    await w.get('input[aria-label="Limit price"]').setValue('34506')
    expect(w.find('[data-testid="band-phrase"]').exists()).toBe(false)
    w.unmount()
  })

  it('shows best bid and offer with their age, tick, minimums, the signing key, and the order value as the operator types', async () => {
    const AGENT = '0x9999999999999999999999999999999999999999'
    desk.handle('orders.preview', (a) => ({
      market: {
        marketId: '2',
        symbol: 'ETH/USDC',
        baseSymbol: 'ETH',
        quoteSymbol: 'USDC',
        tickSize: '0.01',
        minSize: '0.0001',
        minNotional: '10',
        priceDecimals: 2,
        baseQuantityDecimals: 4,
        maxPriceSigFigs: 6,
      },
      book: {
        bid: { price: '3449.5', size: '1.25' },
        ask: { price: '3450.5', size: '2' },
        readAt: Date.now() - 1000,
        lastChangeMs: null,
        source: 'info',
      },
      markPrice: '3450',
      value: null,
      available: { units: '25000', symbol: 'USDC' },
      signer: { role: 'agent', slot: 1, label: '', address: AGENT, owner: CASH },
      problems:
        (a as { quantity?: string }).quantity === '0.001' ? ['order value 3.45 USDC is below the minimum 10 USDC (MinTradeSpotNtl)'] : [],
      warnings: [],
      dataAgeMs: 1000,
      dataMaxAgeMs: 30_000,
    }))
    const { wrapper: w } = await mountScreen(OrderTicket, { props: { account: account(CASH, 'balance', 'cash-1') } })
    useAccountsStore().markets = [MARKET]
    await flush()
    await w.get('select[aria-label="Market"]').setValue('2')
    await w.get('input[aria-label="Limit price"]').setValue('3450.5')
    await w.get('input[aria-label="Quantity"]').setValue('1234.5')
    // 3450.5 x 1234.5 = 4259642.25, exact, grouped
    expect(w.get('[data-testid="order-value"]').text()).toBe('4,259,642.25')
    await new Promise((r) => setTimeout(r, 300))
    await flush()
    expect(w.get('[data-testid="best-bid"]').text()).toBe('3,449.5 USDC × 1.25 ETH')
    expect(w.get('[data-testid="best-ask"]').text()).toBe('3,450.5 USDC × 2 ETH')
    expect(w.get('[data-testid="book-age"]').text()).toMatch(/s ago/)
    expect(w.get('[data-testid="tick-size"]').text()).toBe('0.01 USDC')
    expect(w.get('[data-testid="min-size"]').text()).toBe('0.0001 ETH')
    expect(w.get('[data-testid="min-notional"]').text()).toBe('10 USDC')
    expect(w.get('[data-testid="order-value"]').text()).toBe('4,259,642.25 USDC')
    expect(w.get('[data-testid="order-signer"]').text()).toContain('API key slot 1 of cash-1')
    expect(w.get('[data-testid="order-signer"]').text()).toContain('0x9999…9999')
    await w.get('input[aria-label="Quantity"]').setValue('0.001')
    await new Promise((r) => setTimeout(r, 300))
    await flush()
    expect(w.get('[aria-label="Order preview warnings"]').text()).toContain('below the minimum 10 USDC')
    expect(await seriousA11yViolations()).toEqual([])
    w.unmount()
  })

  it('says a price-band breach on the ticket before Place order, and offers the override for that very order', async () => {
    const outside = (price: string) => Number(price) > 3623
    desk.handle('orders.preview', (a) => {
      const price = (a as { price?: string }).price
      const breach =
        price !== undefined && outside(price)
          ? `a buy at ${price} is more than 5% above the reference 3450.5 (best ask in the book) in market 2`
          : null
      return {
        market: {
          marketId: '2',
          symbol: 'ETH/USDC',
          baseSymbol: 'ETH',
          quoteSymbol: 'USDC',
          tickSize: '0.01',
          minSize: '0.0001',
          minNotional: '10',
          priceDecimals: 2,
          baseQuantityDecimals: 4,
          maxPriceSigFigs: 6,
        },
        book: {
          bid: { price: '3449.5', size: '1' },
          ask: { price: '3450.5', size: '2' },
          readAt: Date.now(),
          lastChangeMs: null,
          source: 'info',
        },
        markPrice: '3450',
        value: null,
        available: { units: '25000', symbol: 'USDC' },
        signer: null,
        problems: breach ? [`outside the price band: ${breach}; Place order is refused unless you type the override phrase`] : [],
        warnings: [],
        dataAgeMs: 0,
        dataMaxAgeMs: 30_000,
        band:
          price === undefined
            ? null
            : {
                percent: '5',
                reference: '3450.5',
                referenceSource: 'best ask in the book',
                breach,
                confirmText: breach ? `BUY MARKET 2 AT ${price}` : null,
              },
      }
    })
    const { wrapper: w } = await mountScreen(OrderTicket, { props: { account: account(CASH, 'balance', 'cash-1') } })
    useAccountsStore().markets = [MARKET]
    await flush()
    await w.get('select[aria-label="Market"]').setValue('2')
    await w.get('input[aria-label="Limit price"]').setValue('3400')
    await w.get('input[aria-label="Quantity"]').setValue('0.01')
    await new Promise((r) => setTimeout(r, 300))
    await flush()
    expect(w.get('[data-testid="price-band"]').text()).toBe('within 5% of 3,450.5 USDC (best ask in the book)')
    expect(w.find('[data-testid="band-phrase"]').exists()).toBe(false)

    // Out of band: said before anything is pressed, with the phrase main will ask for.
    await w.get('input[aria-label="Limit price"]').setValue('3700')
    await new Promise((r) => setTimeout(r, 300))
    await flush()
    expect(w.get('[data-testid="price-band"]').text()).toBe('outside 5% of 3,450.5 USDC (best ask in the book)')
    expect(w.get('[aria-label="Order preview warnings"]').text()).toContain('outside the price band: a buy at 3700 is more than 5% above')
    expect(w.get('[data-testid="band-phrase"]').text()).toBe('BUY MARKET 2 AT 3700')
    expect(desk.callsTo('orders.place')).toHaveLength(0)
    expect(await seriousA11yViolations()).toEqual([])

    // Typed, the order goes once, with the override.
    await w.get('input[aria-label="Override phrase"]').setValue('BUY MARKET 2 AT 3700')
    desk.handle('orders.place', () => ({
      submission: submission({ actionType: 'order', state: 'accepted', outcome: 'success' }),
      leaves: [{ kind: 'open', code: null, oid: '10' }],
    }))
    button('Place order outside the band')!.click()
    await flush()
    expect(desk.callsTo('orders.place')).toEqual([
      {
        account: CASH,
        marketId: '2',
        side: 'bid',
        orderType: 'limit',
        tif: 'gtc',
        price: '3700',
        quantity: '0.01',
        override: { priceBand: true, confirmText: 'BUY MARKET 2 AT 3700' },
      },
    ])

    // Back inside the band: no override on offer.
    await w.get('input[aria-label="Limit price"]').setValue('3500')
    await w.get('input[aria-label="Quantity"]').setValue('0.01')
    expect(w.find('[data-testid="band-phrase"]').exists()).toBe(false) // the old preview is for another price
    await new Promise((r) => setTimeout(r, 300))
    await flush()
    expect(w.get('[data-testid="price-band"]').text()).toMatch(/^within 5%/)
    expect(w.find('[data-testid="band-phrase"]').exists()).toBe(false)
    w.unmount()
  })

  it("switching market drops the old market's book at once and ignores its answer still in flight", async () => {
    const BTC: MarketView = { ...MARKET, marketId: '1', symbol: 'BTC/USDC', baseAssetId: 3 }
    const facts = (marketId: string, bid: string) => ({
      market: {
        marketId,
        symbol: 'X/USDC',
        baseSymbol: 'X',
        quoteSymbol: 'USDC',
        tickSize: '0.5',
        minSize: '0.0001',
        minNotional: null,
        priceDecimals: 2,
        baseQuantityDecimals: 4,
        maxPriceSigFigs: 6,
      },
      book: { bid: { price: bid, size: '1' }, ask: null, readAt: Date.now(), lastChangeMs: null, source: 'info' as const },
      markPrice: null,
      value: null,
      available: null,
      signer: null,
      problems: [],
      warnings: [],
      dataAgeMs: 0,
      dataMaxAgeMs: 30_000,
    })
    let releaseSlow: () => void = () => undefined
    desk.handle('orders.preview', async (a) => {
      const m = (a as { marketId: string }).marketId
      if (m === '1' && desk.callsTo('orders.preview').length > 1) await new Promise<void>((r) => (releaseSlow = r))
      return facts(m, m === '1' ? '65000' : '3199.5')
    })
    const { wrapper: w } = await mountScreen(OrderTicket, { props: { account: account(CASH, 'balance', 'cash-1') } })
    useAccountsStore().markets = [BTC, MARKET]
    await flush()
    await w.get('select[aria-label="Market"]').setValue('1')
    await new Promise((r) => setTimeout(r, 300))
    await flush()
    expect(w.get('[data-testid="best-bid"]').text()).toContain('65,000')
    // A second read of market 1 is still in flight when the operator picks market 2.
    await w.get('input[aria-label="Quantity"]').setValue('0.5')
    await new Promise((r) => setTimeout(r, 300))
    await w.get('select[aria-label="Market"]').setValue('2')
    expect(w.get('[data-testid="best-bid"]').text()).toBe('—')
    releaseSlow()
    await flush()
    expect(w.get('[data-testid="best-bid"]').text()).toBe('—')
    await new Promise((r) => setTimeout(r, 300))
    await flush()
    expect(w.get('[data-testid="best-bid"]').text()).toContain('3,199.5')
    w.unmount()
  })

  it('says when the preview data is too old (StaleData) instead of showing old figures', async () => {
    desk.fail('orders.preview', { code: 'StaleData', message: "the ticket's data is 31 s old, over the 30 s limit" })
    const { wrapper: w } = await mountScreen(OrderTicket, { props: { account: account(CASH, 'balance', 'cash-1') } })
    useAccountsStore().markets = [MARKET]
    await flush()
    await w.get('select[aria-label="Market"]').setValue('2')
    await new Promise((r) => setTimeout(r, 300))
    await flush()
    expect(w.get('[aria-label="Order preview"]').text()).toContain('StaleData')
    expect(w.get('[data-testid="best-bid"]').text()).toBe('—')
    w.unmount()
  })
})
