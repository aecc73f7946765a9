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
  positions: [{ assetId: 3, symbol: 'BTC', actual: '0.3', pendingExposure: '0', ltvPercent: 80, contributionUsd: '15000', markUsd: '62500', markAgeMs: 1000 }],
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
    desk.emit('state.credit', health({ availableUsd: null, marksStale: true, availableReason: 'mark for BTC is 75 s old (over 60 s)', positions: [{ ...health().positions[0]!, actual: '0.25', contributionUsd: null }] }))
    await flush()
    expect(wrapper.get('[data-testid="available-reason"]').text()).toBe('unavailable — mark for BTC is 75 s old (over 60 s)')
    const row = wrapper.get('table[aria-label="Asset contributions"] tbody tr').text()
    expect(row).toContain('0.25')
    expect(row).toContain('mark for BTC is 75 s old')
    expect(await seriousA11yViolations()).toEqual([])
    off()
    wrapper.unmount()
  })
})
