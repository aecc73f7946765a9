// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { ASSETS, CASH, account } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import AccountView from './AccountView.vue'

let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [account(CASH, 'balance', 'cash-1')])
  desk.handle('markets.list', () => ({ markets: [], assets: ASSETS }))
  desk.handle('account.detail', () => ({
    account: account(CASH, 'balance', 'cash-1'),
    balances: [
      { assetId: 1, symbol: 'USDC', available: '1234.5', locked: '0', total: '1234.5', usdValue: '1234.5' },
      { assetId: 2, symbol: 'BTC', available: '0.5', locked: '0', total: '0.5', usdValue: null },
    ],
    credit: null,
    openOrders: [],
    fills: [],
    fetchedAt: Date.now(),
  }))
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})

describe('AccountView', () => {
  it('shows balances in the desk format (USD with cents, unknown as a dash) with no critical or serious accessibility violations', async () => {
    const { wrapper } = await mountScreen(AccountView, { props: { address: CASH }, path: `/account/${CASH}` })
    await flush()
    const text = wrapper.text()
    expect(text).toContain('1,234.5')
    expect(text).toContain('$1,234.50')
    expect(text).toContain('— unknown')
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it('an account the service does not know yet says so and links to activating it from a funded account of the operator', async () => {
    const SPARE = '0x3333333333333333333333333333333333333333' as const
    const spare = { ...account(SPARE, 'unknown', 'Spare'), status: 'none' as const }
    desk.handle('accounts.list', () => [{ ...account(CASH, 'balance', 'cash-1'), status: 'active' as const }, spare])
    desk.handle('account.detail', () => ({ account: spare, balances: [], credit: null, openOrders: [], fills: [], fetchedAt: Date.now() }))
    const { wrapper } = await mountScreen(AccountView, { props: { address: SPARE }, path: `/account/${SPARE}` })
    await flush()
    expect(wrapper.get('[data-testid="account-status"]').text()).toBe('not activated')
    const link = wrapper.get('[data-testid="activation-needed"] a')
    expect(link.text()).toBe('Activate it from cash-1')
    expect(link.attributes('href')).toContain(`/account/${CASH}?activate=${SPARE}`)
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it('arriving with ?activate opens the Activate tab with that account chosen', async () => {
    const SPARE = '0x3333333333333333333333333333333333333333' as const
    desk.handle('accounts.list', () => [{ ...account(CASH, 'balance', 'cash-1'), status: 'active' as const }, { ...account(SPARE, 'unknown', 'Spare'), status: 'none' as const }])
    const { wrapper } = await mountScreen(AccountView, { props: { address: CASH }, path: `/account/${CASH}?activate=${SPARE}` })
    await flush()
    const form = wrapper.get('form[aria-label="Activate account"]')
    expect(form.text()).toContain('Spare')
    expect(form.text()).toMatch(/to create\s*Spare/)
    wrapper.unmount()
  })
})
