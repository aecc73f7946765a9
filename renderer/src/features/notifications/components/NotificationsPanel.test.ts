// @vitest-environment happy-dom
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AlertNotificationEvent, AlertView } from '../../../../../main/contract/types'
import { seriousA11yViolations } from '../../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../../testing/fake-desk'
import { CASH } from '../../../testing/fixtures'
import { useNotificationsStore } from '../store'
import NotificationsPanel from './NotificationsPanel.vue'

let desk: FakeDesk
let log: AlertView[]
const alert = (id: number, over: Partial<AlertView> = {}): AlertView => ({
  id: String(id),
  kind: 'funds-received',
  level: 'success',
  title: `Deposit received: cash-1 (0x2222…2222)`,
  message: `1,234.5 USDC deposited to cash-1 (0x2222…2222).`,
  account: CASH,
  network: 'sandbox',
  atMs: Date.now() - 65_000,
  desktopSuppressed: false,
  acknowledgedAt: null,
  ...over,
})

beforeEach(() => {
  desk = installFakeDesk()
  log = [
    alert(2, { kind: 'ltv', level: 'warning', title: 'Credit line 91.5% in use: credit-1 (0x1111…1111)', desktopSuppressed: true }),
    alert(1),
  ]
  desk.handle('alerts.list', () => log.map((a) => ({ ...a })))
  desk.handle('alerts.acknowledge', ({ id }) => {
    const a = log.find((x) => x.id === id)!
    a.acknowledgedAt = Date.now()
    return { ...a }
  })
  desk.handle('alerts.acknowledgeAll', () => {
    const open = log.filter((a) => a.acknowledgedAt === null)
    for (const a of open) a.acknowledgedAt = Date.now()
    return { acknowledged: open.length }
  })
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})

async function mountPanel(show = true) {
  const pinia = createPinia()
  setActivePinia(pinia)
  const w = mount(NotificationsPanel, { props: { show }, attachTo: document.body, global: { plugins: [pinia] } })
  await flush()
  return w
}
const items = () => [...document.querySelectorAll('[aria-label="Alert list"] > li[data-testid="alert"]')]

describe('NotificationsPanel', () => {
  it('loads the alerts main kept (they survive a reload) and counts the unacknowledged on the bell', async () => {
    const w = await mountPanel(false)
    const notes = useNotificationsStore()
    expect(desk.callsTo('alerts.list')).toHaveLength(1) // at start, with the panel closed
    expect(notes.unread).toBe(2)
    w.unmount()
  })

  it('shows each alert with its kind, time in the operator zone with its age, and text; acknowledges one, then all', async () => {
    const w = await mountPanel()
    const notes = useNotificationsStore()
    expect(items()).toHaveLength(2)
    const first = items()[0]!.textContent!
    expect(first).toMatch(/Credit line/) // kind
    expect(first).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ \(1m \d+s ago\)/) // time with zone and age
    expect(first).toMatch(/no desktop notification/)
    expect(items()[1]!.textContent).toMatch(/Funds received.*1,234\.5 USDC deposited to cash-1 \(0x2222…2222\)/)
    document.querySelector<HTMLButtonElement>('button[aria-label="Acknowledge alert: Deposit received: cash-1 (0x2222…2222)"]')!.click()
    await flush()
    expect(desk.callsTo('alerts.acknowledge')).toEqual([{ id: '1' }])
    expect(items()[1]!.textContent).toMatch(/Acknowledged/)
    expect(notes.unread).toBe(1)
    document.querySelector<HTMLButtonElement>('button[aria-label="Acknowledge all alerts"]')!.click()
    await flush()
    expect(notes.unread).toBe(0)
    expect(document.querySelector('[role="status"]')!.textContent).toBe('1 alert acknowledged')
    expect(document.querySelector<HTMLButtonElement>('button[aria-label="Acknowledge all alerts"]')!.disabled).toBe(true)
    w.unmount()
  })

  it('a pushed alert joins the list at once; other notifications stay in this session list', async () => {
    const w = await mountPanel()
    const notes = useNotificationsStore()
    const pushed: AlertNotificationEvent = {
      id: 'alert-3',
      kind: 'fill',
      level: 'success',
      title: 'Order filled: cash-1 (0x2222…2222)',
      message: 'Bought 0.01 BTC at 64,000 USDC',
      atMs: Date.now(),
      alertId: '3',
      alertKind: 'order-filled',
      desktop: true,
    }
    notes.push(pushed)
    notes.local('stream', 'warning', 'Live stream disconnected', 'Values age until it reconnects.')
    await flush()
    expect(items().map((li) => li.querySelector('.title')!.textContent!.trim())).toEqual([
      'Order filled Order filled: cash-1 (0x2222…2222)',
      expect.stringMatching(/^Credit line/),
      expect.stringMatching(/^Funds received/),
    ])
    expect(document.querySelector('[aria-label="Notification list"]')!.textContent).toMatch(/Live stream disconnected/)
    expect(document.querySelector('[aria-label="Notification list"]')!.textContent).not.toMatch(/Order filled/)
    w.unmount()
  })

  it('has no critical or serious accessibility violations', async () => {
    const w = await mountPanel()
    useNotificationsStore().local('stream', 'warning', 'Live stream disconnected', 'Values age until it reconnects.')
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
    w.unmount()
  })
})
