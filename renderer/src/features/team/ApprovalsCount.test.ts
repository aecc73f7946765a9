// @vitest-environment happy-dom
/** The bar's count of proposals needing my approval: on every screen, live from the `state.team` push. */
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import App from '../../app/App.vue'
import { createDeskRouter } from '../../app/router'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { CASH, account, appState } from '../../testing/fixtures'
import { teamStatus } from './testing'

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

const approvalsLink = () => document.querySelector<HTMLAnchorElement>('nav[aria-label="Main"] a[href="#/approvals"]')!

describe('approvals count in the navigation', () => {
  it('shows the count from the start, follows each push, and hides at zero or when team mode is off', async () => {
    desk.handle('team.status', () => teamStatus({ needsMyApproval: 2 }))
    const pinia = createPinia()
    setActivePinia(pinia)
    const router = createDeskRouter()
    const w = mount(App, { attachTo: '#app', global: { plugins: [pinia, router] } })
    await router.isReady()
    await flush()
    expect(approvalsLink().textContent).toBe('Approvals2 need my approval')
    desk.emit('state.team', { status: teamStatus({ needsMyApproval: 3 }), proposalsChanged: true })
    await flush()
    expect(approvalsLink().querySelector('[data-testid="approvals-count"]')!.textContent).toBe('3 need my approval')
    desk.emit('state.team', { status: teamStatus({ needsMyApproval: 1 }), proposalsChanged: true })
    await flush()
    expect(approvalsLink().textContent).toBe('Approvals1 needs my approval')
    desk.emit('state.team', { status: teamStatus({ needsMyApproval: 0 }), proposalsChanged: true })
    await flush()
    expect(approvalsLink().querySelector('[data-testid="approvals-count"]')).toBeNull()
    desk.emit('state.team', { status: teamStatus({ state: 'off', needsMyApproval: 4 }), proposalsChanged: false })
    await flush()
    expect(approvalsLink().textContent).toBe('Approvals')
    // Another screen: the bar is the same.
    await router.push('/journal')
    desk.emit('state.team', { status: teamStatus({ needsMyApproval: 5 }), proposalsChanged: true })
    await flush()
    expect(approvalsLink().textContent).toBe('Approvals5 need my approval')
    w.unmount()
  })
})
