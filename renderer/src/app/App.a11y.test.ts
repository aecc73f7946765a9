// @vitest-environment happy-dom
/**
 * The whole shell (header, navigation, main landmark, notifications drawer, toasts) under
 * axe-core, and the toasts' behaviour for assistive technology: announced politely, never
 * taking focus, and never piling up.
 */
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { NotificationEvent } from '../../../main/contract/types'
import { seriousA11yViolations } from '../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../testing/fake-desk'
import { CASH, appState, account } from '../testing/fixtures'
import App from './App.vue'
import { createDeskRouter } from './router'

let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('app.state', () => appState())
  desk.handle('settings.get', () => ({
    autoLockMinutes: 15,
    passphraseWindowMinutes: 5,
    warningThresholds: { watchPct: 50, warningPct: 75, criticalPct: 90 },
    theme: 'dark',
  }))
  desk.handle('accounts.list', () => [account(CASH, 'balance', 'cash-1')])
  desk.handle('portfolio.overview', () => ({ rows: [], totals: [], totalUsd: '0', asOf: Date.now() }))
  document.body.innerHTML = '<div id="app"></div>'
  window.location.hash = '#/overview'
})
afterEach(() => {
  document.body.innerHTML = ''
})

async function mountApp() {
  const pinia = createPinia()
  setActivePinia(pinia)
  const router = createDeskRouter()
  const w = mount(App, { attachTo: '#app', global: { plugins: [pinia, router] } })
  await router.isReady()
  await flush()
  return w
}
const note = (i: number, over: Partial<NotificationEvent> = {}): NotificationEvent => ({
  id: `n${i}`,
  kind: 'fill',
  level: 'info',
  title: `Fill ${i}`,
  message: `filled ${i}`,
  atMs: Date.now(),
  ...over,
})

describe('App shell accessibility', () => {
  it('has no critical or serious violations with the overview, toasts, and the notifications panel open', async () => {
    const w = await mountApp()
    expect(document.querySelector('nav[aria-label="Main"]')).not.toBeNull()
    desk.emit('notify', note(1, { level: 'error', kind: 'rejection', title: 'Order rejected' }))
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
    const opener = document.querySelector<HTMLButtonElement>('button[aria-label^="Notifications"]')!
    opener.focus()
    opener.click()
    await flush()
    expect(document.querySelector('[aria-label="Notification list"]')).not.toBeNull()
    const drawer = document.querySelector<HTMLElement>('[role="dialog"][aria-label="Notifications"]')!
    expect(drawer.contains(document.activeElement)).toBe(true)
    expect(await seriousA11yViolations()).toEqual([])
    // Escape closes it and focus goes back to the button that opened it.
    drawer.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }))
    await flush()
    expect(document.querySelector('[role="dialog"][aria-label="Notifications"]')).toBeNull()
    expect(document.activeElement).toBe(opener)
    w.unmount()
  })

  it('announces toasts in a polite live region without taking focus, and does not pile them up', async () => {
    const w = await mountApp()
    const lock = document.querySelector<HTMLButtonElement>('button[aria-label="Lock the vault"]')!
    lock.focus()
    for (let i = 1; i <= 6; i++) {
      desk.emit('notify', note(i))
      await flush()
    }
    // The same title again (a stream flapping, a level re-announced) merges into one toast.
    desk.emit('notify', note(7, { title: 'Fill 6', message: 'filled 6 again' }))
    await flush()
    const live = document.querySelector('[aria-live="polite"]')!
    expect(live).not.toBeNull()
    const toasts = [...live.querySelectorAll('.toast')]
    expect(toasts.length).toBe(3)
    expect(toasts[0]!.textContent).toContain('filled 6 again')
    expect(toasts[0]!.textContent).toContain('×2')
    expect(document.activeElement).toBe(lock)
    w.unmount()
  })
})
