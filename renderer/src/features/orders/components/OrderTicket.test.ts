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
const MARKET: MarketView = { marketId: '2', symbol: 'ETH/USDC', priceDecimals: 2, baseQuantityDecimals: 4, baseAssetId: 3, quoteAssetId: 1, creditTrading: false }
const PHRASE = 'BUY MARKET 2 AT 34505'

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('policy.show', () => ({ network: 'sandbox', coolingOffMs: 60_000, sandboxDefaults: true, rules: [], halted: null, addresses: [], events: [] }))
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
      details: { code: 'PriceOutsideBand', band: '5', marketId: 2, reference: '3450.5', referenceSource: 'best ask in the book', confirmText: PHRASE },
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
    desk.handle('orders.place', () => ({ submission: submission({ actionType: 'order', state: 'accepted', outcome: 'success' }), leaves: [{ kind: 'open', code: null, oid: '9' }] }))
    place().click()
    await flush()
    const calls = desk.callsTo('orders.place')
    expect(calls).toHaveLength(2)
    expect(calls[1]).toEqual({ account: CASH, marketId: '2', side: 'bid', orderType: 'limit', tif: 'gtc', price: '34505', quantity: '0.01', override: { priceBand: true, confirmText: PHRASE } })
    expect(w.find('[data-testid="band-phrase"]').exists()).toBe(false)
    expect(w.get('[aria-label="Order result"]').text()).toContain('open oid 9')
    expect(button('Place order')!.disabled).toBe(true) // quantity cleared: no second order by a second click
    w.unmount()
  })

  it('editing the ticket drops the override (the phrase belongs to the order that was refused)', async () => {
    const { wrapper: w } = await mountScreen(OrderTicket, { props: { account: account(CASH, 'balance', 'cash-1') } })
    useAccountsStore().markets = [MARKET]
    await flush()
    await w.get('select[aria-label="Market"]').setValue('2')
    await w.get('input[aria-label="Limit price"]').setValue('34505')
    await w.get('input[aria-label="Quantity"]').setValue('0.01')
    desk.fail('orders.place', { code: 'PriceOutsideBand', message: 'outside', details: { band: '5', reference: '3450.5', confirmText: PHRASE } })
    button('Place order')!.click()
    await flush()
    expect(w.find('[data-testid="band-phrase"]').exists()).toBe(true)
    await w.get('input[aria-label="Limit price"]').setValue('34506')
    expect(w.find('[data-testid="band-phrase"]').exists()).toBe(false)
    w.unmount()
  })
})
