// @vitest-environment happy-dom
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { beforeEach, describe, expect, it } from 'vitest'
import type { OpenOrderView } from '../../../../main/contract/types'
import { seriousA11yViolations } from '../../testing/axe'
import AccountOrders from './AccountOrders.vue'

beforeEach(() => setActivePinia(createPinia()))

const order = (oid: string, timeMs = Date.UTC(2026, 10, 23, 12, 0, 0)): OpenOrderView => ({
  marketId: '2',
  oid,
  cloid: null,
  side: 'bid',
  price: '3000',
  originalQty: '0.01',
  remainingQty: '0.01',
  filledQty: '0',
  timeMs,
})
const labels = (w: ReturnType<typeof mount>) => w.findAll('button.row-cancel').map((b) => b.attributes('aria-label'))

describe('AccountOrders: rows never move under a pending click (issue 31)', () => {
  it('keeps a cancelled row in place while the pointer is over the rows; the next Cancel does not slide under it', async () => {
    const w = mount(AccountOrders, { props: { orders: [order('11'), order('12'), order('13')] }, attachTo: document.body })
    const tbody = w.get('tbody')
    await tbody.trigger('pointerenter')
    await w.findAll('button.row-cancel')[0]!.trigger('click')
    expect(w.emitted('cancel')).toEqual([['2', '11']])
    // The same button again (a double click): asked once, never a second order.
    await w.findAll('button.row-cancel')[0]!.trigger('click')
    expect(w.emitted('cancel')).toHaveLength(1)
    // main pushes the orders without the cancelled one: its row stays where it was, marked gone.
    await w.setProps({ orders: [order('12'), order('13')] })
    expect(labels(w)).toEqual(['Order 11 is no longer open', 'Cancel order 12', 'Cancel order 13'])
    const first = w.findAll('button.row-cancel')[0]!
    expect(first.attributes('disabled')).toBeDefined()
    await first.trigger('click')
    expect(w.emitted('cancel')).toHaveLength(1)
    // A new order joins at the end while held.
    await w.setProps({ orders: [order('10'), order('12'), order('13')] })
    expect(labels(w)).toEqual(['Order 11 is no longer open', 'Cancel order 12', 'Cancel order 13', 'Cancel order 10'])
    expect(await seriousA11yViolations(w.element)).toEqual([])
    // Once the pointer leaves, the table settles.
    await tbody.trigger('pointerleave')
    expect(labels(w)).toEqual(['Cancel order 10', 'Cancel order 12', 'Cancel order 13'])
    w.unmount()
  })
  it('shows the placed time in the one time format: local, 24-hour, with its zone and its age', () => {
    const w = mount(AccountOrders, { props: { orders: [order('11', Date.now() - 65_000)] } })
    expect(w.get('[data-event-time]').text()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+ \(1m \ds ago\)$/)
    expect(w.text()).toContain('market 2')
  })
})
