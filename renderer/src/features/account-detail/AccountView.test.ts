// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { ASSETS, CASH, account, submission } from '../../testing/fixtures'
import type { AccountDetailView, FillView, OpenOrderView } from '../../../../main/contract/types'
import { useAccountDetailStore } from './store'
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
    desk.handle('accounts.list', () => [
      { ...account(CASH, 'balance', 'cash-1'), status: 'active' as const },
      { ...account(SPARE, 'unknown', 'Spare'), status: 'none' as const },
    ])
    const { wrapper } = await mountScreen(AccountView, { props: { address: CASH }, path: `/account/${CASH}?activate=${SPARE}` })
    await flush()
    const form = wrapper.get('form[aria-label="Activate account"]')
    expect(form.text()).toContain('Spare')
    expect(form.text()).toMatch(/to create\s*Spare/)
    wrapper.unmount()
  })

  describe('every table sorts by the value behind the cell', () => {
    /** The first cell of each body row: the asset, market or time that identifies it. */
    const firstCells = (wrapper: { findAll: (s: string) => { text: () => string }[] }, table: string) =>
      wrapper.findAll(`table[aria-label="${table}"] tbody tr td:first-child`).map((c) => c.text())

    it('Balances: a click sorts by the exact amount (not its text), a second reverses, a third restores; aria-sort follows; axe is clean', async () => {
      desk.handle('account.detail', () => ({
        account: account(CASH, 'balance', 'cash-1'),
        balances: [
          { assetId: 1, symbol: 'USDC', available: '1234.5', locked: '0', total: '1234.5', usdValue: '1234.5' },
          { assetId: 2, symbol: 'BTC', available: '0.5', locked: '0', total: '0.5', usdValue: null },
          { assetId: 3, symbol: 'ETH', available: '250000', locked: '0', total: '250000', usdValue: '250000' },
          { assetId: 4, symbol: 'DOGE', available: '99', locked: '0', total: '99', usdValue: '99' },
          // Equal as floats, different as decimals: only an exact compare orders these two.
          { assetId: 5, symbol: 'BIGB', available: '90071992547409.93', locked: '0', total: '90071992547409.93', usdValue: null },
          { assetId: 6, symbol: 'BIGA', available: '90071992547409.92', locked: '0', total: '90071992547409.92', usdValue: null },
        ],
        credit: null,
        openOrders: [],
        fills: [],
        fetchedAt: Date.now(),
      }))
      const { wrapper } = await mountScreen(AccountView, { props: { address: CASH }, path: `/account/${CASH}` })
      await flush()
      const initial = ['USDC', 'BTC', 'ETH', 'DOGE', 'BIGB', 'BIGA']
      expect(firstCells(wrapper, 'Balances')).toEqual(initial)
      expect(wrapper.get('table[aria-label="Balances"] thead th:nth-child(4)').attributes('aria-sort')).toBe('none')
      const total = wrapper.get('table[aria-label="Balances"] thead th:nth-child(4) button')
      expect(total.text()).toBe('Total')
      expect(total.attributes('type')).toBe('button')

      await total.trigger('click')
      expect(firstCells(wrapper, 'Balances')).toEqual(['BTC', 'DOGE', 'USDC', 'ETH', 'BIGA', 'BIGB'])
      expect(wrapper.get('table[aria-label="Balances"] thead th:nth-child(4)').attributes('aria-sort')).toBe('ascending')
      expect(wrapper.get('table[aria-label="Balances"] tbody tr:nth-child(3) td:nth-child(4)').text()).toBe('1,234.5')

      await total.trigger('click')
      expect(firstCells(wrapper, 'Balances')).toEqual(['BIGB', 'BIGA', 'ETH', 'USDC', 'DOGE', 'BTC'])
      expect(wrapper.get('table[aria-label="Balances"] thead th:nth-child(4)').attributes('aria-sort')).toBe('descending')
      expect(wrapper.get('table[aria-label="Balances"] tbody tr:nth-child(3) td:nth-child(4)').text()).toBe('250,000')
      expect(await seriousA11yViolations()).toEqual([])

      await total.trigger('click')
      expect(firstCells(wrapper, 'Balances')).toEqual(initial)
      expect(wrapper.get('table[aria-label="Balances"] thead th:nth-child(4)').attributes('aria-sort')).toBe('none')

      // Unknown USD values sort last; another column resets the order to ascending on it.
      await wrapper.get('table[aria-label="Balances"] thead th:nth-child(5) button').trigger('click')
      expect(firstCells(wrapper, 'Balances')).toEqual(['DOGE', 'USDC', 'ETH', 'BTC', 'BIGB', 'BIGA'])
      expect(wrapper.get('table[aria-label="Balances"] thead th:nth-child(4)').attributes('aria-sort')).toBe('none')
      expect(wrapper.get('table[aria-label="Balances"] thead th:nth-child(5)').attributes('aria-sort')).toBe('ascending')
      wrapper.unmount()
    })

    it('Recent fills and open orders sort by time in ms and by exact price; the empty-state row is never sorted', async () => {
      const t0 = Date.now() - 3_600_000
      desk.handle('account.detail', () => ({
        account: account(CASH, 'balance', 'cash-1'),
        balances: [],
        credit: null,
        openOrders: [
          {
            marketId: '1',
            oid: '11',
            cloid: null,
            side: 'bid' as const,
            price: '1000.5',
            originalQty: '1',
            remainingQty: '1',
            filledQty: '0',
            timeMs: t0 + 2000,
          },
          {
            marketId: '1',
            oid: '12',
            cloid: null,
            side: 'ask' as const,
            price: '250',
            originalQty: '2',
            remainingQty: '2',
            filledQty: '0',
            timeMs: t0 + 1000,
          },
        ],
        fills: [
          {
            marketId: '1',
            tid: 't-late',
            oid: '1',
            side: 'B' as const,
            price: '99',
            size: '1',
            fee: '0.01',
            feeAssetId: null,
            cloid: null,
            timeMs: t0 + 60_000,
          },
          {
            marketId: '1',
            tid: 't-early',
            oid: '2',
            side: 'A' as const,
            price: '1000',
            size: '10',
            fee: '0.1',
            feeAssetId: null,
            cloid: null,
            timeMs: t0,
          },
          {
            marketId: '1',
            tid: 't-mid',
            oid: '3',
            side: 'B' as const,
            price: '250',
            size: '2',
            fee: '0.02',
            feeAssetId: null,
            cloid: null,
            timeMs: t0 + 30_000,
          },
        ],
        fetchedAt: Date.now(),
      }))
      const { wrapper } = await mountScreen(AccountView, { props: { address: CASH }, path: `/account/${CASH}` })
      await flush()
      const tids = () => wrapper.findAll('table[aria-label="Recent fills"] tbody tr td:nth-child(7)').map((c) => c.text())
      expect(tids()).toEqual(['t-late', 't-early', 't-mid'])
      await wrapper.get('table[aria-label="Recent fills"] thead th:nth-child(1) button').trigger('click')
      expect(tids()).toEqual(['t-early', 't-mid', 't-late'])
      await wrapper.get('table[aria-label="Recent fills"] thead th:nth-child(4) button').trigger('click')
      expect(tids()).toEqual(['t-late', 't-mid', 't-early'])
      await wrapper.get('table[aria-label="Recent fills"] thead th:nth-child(4) button').trigger('click')
      expect(tids()).toEqual(['t-early', 't-mid', 't-late'])

      const oids = () => wrapper.findAll('table[aria-label="Open orders"] tbody tr td:nth-child(7)').map((c) => c.text())
      await wrapper.get('table[aria-label="Open orders"] thead th:nth-child(3) button').trigger('click')
      expect(oids()).toEqual(['12', '11'])
      await wrapper.get('table[aria-label="Open orders"] thead th:nth-child(8) button').trigger('click')
      expect(oids()).toEqual(['12', '11'])
      await wrapper.get('table[aria-label="Open orders"] thead th:nth-child(8) button').trigger('click')
      expect(oids()).toEqual(['11', '12'])
      expect(wrapper.get('table[aria-label="Open orders"] thead th:nth-child(9)').find('button').exists()).toBe(false)

      // With nothing to show, the one row is the empty-state row whatever the sort.
      await wrapper.get('table[aria-label="Balances"] thead th:nth-child(1) button').trigger('click')
      const balanceRows = wrapper.findAll('table[aria-label="Balances"] tbody tr')
      expect(balanceRows.map((r) => r.text())).toEqual(['no balances'])
      expect(await seriousA11yViolations()).toEqual([])
      wrapper.unmount()
    })
  })

  it('a day of fills: the first 50 rows in the order chosen, all of them on request', async () => {
    const t0 = Date.now() - 3_600_000
    const fills: FillView[] = Array.from({ length: 60 }, (_, i) => ({
      marketId: '1',
      tid: `t${String(i).padStart(2, '0')}`,
      oid: null,
      side: 'B' as const,
      price: String(100 + i),
      size: '1',
      fee: '0.01',
      feeAssetId: null,
      cloid: null,
      timeMs: t0 + i * 1000,
    }))
    desk.handle('account.detail', () => ({
      account: account(CASH, 'balance', 'cash-1'),
      balances: [],
      credit: null,
      openOrders: [],
      fills,
      fetchedAt: Date.now(),
    }))
    const { wrapper } = await mountScreen(AccountView, { props: { address: CASH }, path: `/account/${CASH}` })
    await flush()
    const tids = () => wrapper.findAll('table[aria-label="Recent fills"] tbody tr td:nth-child(7)').map((c) => c.text())
    expect(tids()).toHaveLength(50)
    expect(tids()[0]).toBe('t00')
    // Sorted first, then cut: the highest prices are the first rows once sorted descending.
    const price = wrapper.get('table[aria-label="Recent fills"] thead th:nth-child(4) button')
    await price.trigger('click')
    await price.trigger('click')
    expect(tids().slice(0, 2)).toEqual(['t59', 't58'])
    expect(tids()).toHaveLength(50)
    const more = wrapper.findAll('button').find((b) => b.text().startsWith('Show all'))!
    expect(more.text()).toBe('Show all 60 fills')
    expect(more.attributes('aria-expanded')).toBe('false')
    await more.trigger('click')
    expect(tids()).toHaveLength(60)
    expect(more.attributes('aria-expanded')).toBe('true')
    expect(tids().at(-1)).toBe('t00')
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it("a cancel shows its accepted result from its own answer, and the list follows main's push of the page (no read of its own)", async () => {
    const order = (oid: string): OpenOrderView => ({
      marketId: '1',
      oid,
      cloid: null,
      side: 'bid',
      price: '100',
      originalQty: '1',
      remainingQty: '1',
      filledQty: '0',
      timeMs: Date.now() - 5_000,
    })
    const fills: FillView[] = [
      {
        marketId: '1',
        tid: 'f1',
        oid: null,
        side: 'A',
        price: '99',
        size: '1',
        fee: '0',
        feeAssetId: null,
        cloid: null,
        timeMs: Date.now(),
      },
    ]
    const page = (orders: OpenOrderView[]): AccountDetailView => ({
      account: account(CASH, 'balance', 'cash-1'),
      balances: [],
      credit: null,
      openOrders: orders,
      fills: fills.map((f) => ({ ...f })),
      fetchedAt: Date.now(),
    })
    desk.handle('account.detail', () => page([order('11'), order('12')]))
    let answer: () => void = () => {}
    desk.handle(
      'orders.cancel',
      () =>
        new Promise((resolve) => {
          answer = () =>
            resolve({
              submission: submission({ actionType: 'cancel', state: 'accepted', outcome: 'success', summary: 'cancel oid 11 in market 1' }),
              leaves: [{ kind: 'cancelled', oid: '11', code: null }],
            })
        }),
    )
    const { wrapper } = await mountScreen(AccountView, { props: { address: CASH }, path: `/account/${CASH}` })
    await flush()
    const reads = desk.callsTo('account.detail').length
    const store = useAccountDetailStore()
    const shownFills = store.detail!.fills
    await wrapper.get('button[aria-label="Cancel order 11"]').trigger('click')
    await flush()
    // One cancel at a time: while it runs every row's Cancel is disabled by the fieldset around the rows
    // (a browser disables the buttons of a disabled fieldset; the test DOM does not, so the fieldset is checked).
    const rows = () => wrapper.get('button[aria-label="Cancel order 12"]').element.closest('fieldset')!
    expect(rows().disabled).toBe(true)
    answer()
    await flush()
    expect(rows().disabled).toBe(false)
    expect(desk.callsTo('orders.cancel')).toEqual([{ account: CASH, marketId: '1', oid: '11' }])
    expect(wrapper.get('[data-testid="submission-state"]').text()).toBe('accepted')
    expect(desk.callsTo('account.detail')).toHaveLength(reads)
    // main pushes the page without the order: the row goes; the fills, unchanged, are the ones already shown.
    store.applyAccount(page([order('12')]))
    await flush()
    expect(wrapper.find('button[aria-label="Cancel order 11"]').exists()).toBe(false)
    expect(wrapper.find('button[aria-label="Cancel order 12"]').exists()).toBe(true)
    expect(store.detail!.fills).toBe(shownFills)
    // The push came: nothing is read a moment later either.
    await new Promise((r) => setTimeout(r, 1_100))
    expect(desk.callsTo('account.detail')).toHaveLength(reads)
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it('a cancelled order still listed a moment after its accepted result (no push removed it): the page is read once', async () => {
    const order = (oid: string): OpenOrderView => ({
      marketId: '1',
      oid,
      cloid: null,
      side: 'bid',
      price: '100',
      originalQty: '1',
      remainingQty: '1',
      filledQty: '0',
      timeMs: Date.now() - 5_000,
    })
    let listed = [order('11'), order('12')]
    desk.handle('account.detail', () => ({
      account: account(CASH, 'balance', 'cash-1'),
      balances: [],
      credit: null,
      openOrders: listed,
      fills: [],
      fetchedAt: Date.now(),
    }))
    desk.handle('orders.cancel', () => ({
      submission: submission({ actionType: 'cancel', state: 'accepted', outcome: 'success', summary: 'cancel oid 11 in market 1' }),
      leaves: [{ kind: 'cancelled', oid: '11', code: null }],
    }))
    const { wrapper } = await mountScreen(AccountView, { props: { address: CASH }, path: `/account/${CASH}` })
    await flush()
    const reads = desk.callsTo('account.detail').length
    await wrapper.get('button[aria-label="Cancel order 11"]').trigger('click')
    await flush()
    expect(desk.callsTo('account.detail')).toHaveLength(reads)
    listed = [order('12')]
    await new Promise((r) => setTimeout(r, 1_100))
    await flush()
    expect(desk.callsTo('account.detail')).toHaveLength(reads + 1)
    expect(wrapper.find('button[aria-label="Cancel order 11"]').exists()).toBe(false)
    wrapper.unmount()
  })

  it('holds a screen lease on its account while mounted: taken on mount, moved with the address, given back on unmount', async () => {
    const OTHER = '0x3333333333333333333333333333333333333333' as const
    desk.handle('screen.watch', () => ({ leaseId: 'lease-7', ttlMs: 60_000, renewEveryMs: 20_000 }))
    desk.handle('screen.release', () => ({ released: true }))
    const { wrapper } = await mountScreen(AccountView, { props: { address: CASH }, path: `/account/${CASH}` })
    await flush()
    expect(desk.callsTo('screen.watch')).toEqual([{ target: { kind: 'account', address: CASH } }])
    expect(desk.callsTo('screen.release')).toEqual([])
    await (wrapper as unknown as { setProps(p: { address: string }): Promise<void> }).setProps({ address: OTHER })
    await flush()
    // The same lease follows the page to its new account (no second lease, nothing left pinned).
    expect(desk.callsTo('screen.watch')).toEqual([
      { target: { kind: 'account', address: CASH } },
      { target: { kind: 'account', address: OTHER }, leaseId: 'lease-7' },
    ])
    wrapper.unmount()
    await flush()
    expect(desk.callsTo('screen.release')).toEqual([{ leaseId: 'lease-7' }])
  })
})
