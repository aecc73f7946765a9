// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { CreditHealthView } from '../../../../main/contract/types'
import { wireEvents } from '../../app/store'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { CREDIT, account } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import CreditView from './CreditView.vue'

// The chart draws on a canvas, which happy-dom has not got; its own tests are elsewhere.
vi.mock('./components/CreditChart.vue', async () => {
  const { defineComponent, h } = await import('vue')
  return { default: defineComponent({ render: () => h('div') }) }
})

let desk: FakeDesk
const health = (over: Partial<CreditHealthView> = {}): CreditHealthView => ({
  address: CREDIT,
  status: 'active',
  creditUsd: '50000',
  availableUsd: '42000',
  lastKnownAvailableUsd: '42000',
  marksStale: false,
  oracle: { status: 'available', reasonCode: null },
  positions: [
    {
      assetId: 3,
      symbol: 'BTC',
      actual: '0.3',
      pendingExposure: '0',
      ltvPercent: 80,
      contributionUsd: '15000',
      markUsd: '62500',
      markAgeMs: 1000,
    },
  ],
  warning: 'ok',
  tradingWhitelist: [],
  ...over,
})

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [account(CREDIT, 'credit', 'credit-1')])
  desk.handle('credit.history', () => [])
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})

describe('CreditView', () => {
  it('follows pushed credit health, and says why available USD is missing', async () => {
    desk.handle('credit.health', () => health())
    const { wrapper } = await mountScreen(CreditView, { props: { address: CREDIT } })
    const off = wireEvents()
    await flush()
    expect(wrapper.text()).toContain('$42,000.00')
    desk.emit(
      'state.credit',
      health({
        availableUsd: null,
        marksStale: true,
        availableReason: 'mark for BTC is 75 s old (over 60 s)',
        positions: [{ ...health().positions[0]!, actual: '0.25', contributionUsd: null }],
      }),
    )
    await flush()
    expect(wrapper.get('[data-testid="available-reason"]').text()).toBe('unavailable — mark for BTC is 75 s old (over 60 s)')
    const row = wrapper.get('table[aria-label="Asset contributions"] tbody tr').text()
    expect(row).toContain('0.25')
    expect(row).toContain('mark for BTC is 75 s old')
    expect(await seriousA11yViolations()).toEqual([])
    off()
    wrapper.unmount()
  })

  it('the contributions table sorts by exact USD and by mark age (not the formatted text), reversing on a second click, with aria-sort and no axe violations', async () => {
    const pos = health().positions[0]!
    desk.handle('credit.health', () =>
      health({
        positions: [
          { ...pos, assetId: 3, symbol: 'BTC', contributionUsd: '1234.5', markAgeMs: 5_000 },
          { ...pos, assetId: 4, symbol: 'ETH', contributionUsd: '250000', markAgeMs: 90_000 },
          { ...pos, assetId: 5, symbol: 'SOL', contributionUsd: '99', markAgeMs: null, markUsd: null },
        ],
      }),
    )
    const { wrapper } = await mountScreen(CreditView, { props: { address: CREDIT } })
    await flush()
    const table = 'table[aria-label="Asset contributions"]'
    const assets = () => wrapper.findAll(`${table} tbody tr td:first-child`).map((c) => c.text())
    expect(assets()).toEqual(['BTC', 'ETH', 'SOL'])
    const usd = wrapper.get(`${table} thead th:nth-child(7) button`)
    expect(usd.text()).toBe('Contribution USD')
    await usd.trigger('click')
    expect(assets()).toEqual(['SOL', 'BTC', 'ETH'])
    expect(wrapper.get(`${table} thead th:nth-child(7)`).attributes('aria-sort')).toBe('ascending')
    await usd.trigger('click')
    expect(assets()).toEqual(['ETH', 'BTC', 'SOL'])
    expect(wrapper.get(`${table} thead th:nth-child(7)`).attributes('aria-sort')).toBe('descending')
    expect(wrapper.get(`${table} tbody tr:first-child td:nth-child(7)`).text()).toBe('$250,000.00')
    // Mark age in ms: 5 s before 90 s (as text "1 min 30 s" vs "5 s" would not say so); no mark last.
    await wrapper.get(`${table} thead th:nth-child(5) button`).trigger('click')
    expect(assets()).toEqual(['BTC', 'ETH', 'SOL'])
    expect(wrapper.get(`${table} thead th:nth-child(7)`).attributes('aria-sort')).toBe('none')
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })
})
