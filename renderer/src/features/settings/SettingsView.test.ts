// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { appState } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import SettingsView from './SettingsView.vue'

let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('app.state', () => appState())
  desk.handle('settings.get', () => ({ autoLockMinutes: 15, passphraseWindowMinutes: 5, warningThresholds: { watchPct: 50, warningPct: 75, criticalPct: 90 }, theme: 'dark' }))
  desk.handle('networks.list', () => ({ selected: 'sandbox', networks: [appState().network!] }))
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})

describe('SettingsView', () => {
  it('lists the networks with no critical or serious accessibility violations', async () => {
    const { wrapper } = await mountScreen(SettingsView, { path: '/settings' })
    await flush()
    expect(document.querySelector('table[aria-label="Networks"]')).not.toBeNull()
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })
})
