// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { appState } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import type { AlertSettingsView } from '../../../../main/contract/types'
import SettingsView from './SettingsView.vue'

let desk: FakeDesk
let stored: AlertSettingsView
beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('app.state', () => appState())
  desk.handle('settings.get', () => ({
    autoLockMinutes: 15,
    passphraseWindowMinutes: 5,
    warningThresholds: { watchPct: 50, warningPct: 75, criticalPct: 90 },
    theme: 'dark',
  }))
  desk.handle('networks.list', () => ({ selected: 'sandbox', networks: [{ ...appState().network!, network: 'sandbox' }] }))
  stored = {
    rules: {
      'funds-received': true,
      ltv: true,
      'order-filled': true,
      'earn-claimable': true,
      'agent-slot-empty': true,
      'write-unresolved': true,
      'team-approval': true,
      'team-proposal': true,
    },
    ltvThresholdsPct: [80, 90],
    quietHours: null,
    checkIntervalSec: 60,
    desktopNotifications: true,
  }
  desk.handle('alerts.settings.get', () => stored)
  desk.handle('alerts.settings.update', (p) => (stored = { ...stored, ...p, rules: { ...stored.rules, ...p.rules } } as AlertSettingsView))
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

  it('Alerts: shows the stored settings, saves kinds, thresholds, quiet hours and desktop notifications to main', async () => {
    const { wrapper } = await mountScreen(SettingsView, { path: '/settings' })
    await flush()
    const form = wrapper.get('form[aria-labelledby="alert-settings-head"]')
    expect(form.get<HTMLInputElement>('input[aria-label="Credit line alert thresholds percent"]').element.value).toBe('80, 90')
    expect(form.get<HTMLInputElement>('input[aria-label="Quiet hours from"]').element.disabled).toBe(true)
    await form.get('input[aria-label="Alert: Order filled"]').setValue(false)
    await form.get('input[aria-label="Credit line alert thresholds percent"]').setValue('75.25, 92.5%')
    await form.get('input[aria-label="Quiet hours on"]').setValue(true)
    await form.get('input[aria-label="Quiet hours from"]').setValue('21:30')
    await form.get('input[aria-label="Quiet hours to"]').setValue('06:15')
    await form.get('input[aria-label="Desktop notifications"]').setValue(false)
    await form.trigger('submit')
    await flush()
    expect(desk.callsTo('alerts.settings.update')).toEqual([
      {
        rules: expect.objectContaining({ 'order-filled': false, ltv: true }),
        ltvThresholdsPct: [75.25, 92.5],
        quietHours: { start: '21:30', end: '06:15' },
        desktopNotifications: false,
      },
    ])
    expect(form.get('[role="status"]').text()).toBe('Alert settings saved')
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it('Alerts: a threshold past 100 or with 3 decimals is caught before main is asked; main refusing is shown', async () => {
    const { wrapper } = await mountScreen(SettingsView, { path: '/settings' })
    await flush()
    const form = wrapper.get('form[aria-labelledby="alert-settings-head"]')
    await form.get('input[aria-label="Credit line alert thresholds percent"]').setValue('80.125')
    await form.trigger('submit')
    await flush()
    expect(form.get('[role="alert"]').text()).toMatch(/"80.125" is not a percent from 0 to 100 with at most 2 decimals/)
    expect(desk.callsTo('alerts.settings.update')).toEqual([])
    desk.fail('alerts.settings.update', {
      code: 'InvalidAlertSettings',
      message: 'quiet hours start and end at the same time: turn them off instead',
    })
    await form.get('input[aria-label="Credit line alert thresholds percent"]').setValue('100')
    await form.trigger('submit')
    await flush()
    expect(form.text()).toMatch(/InvalidAlertSettings/)
    wrapper.unmount()
  })
  it("Networks: saving asks for the vault passphrase and shows main's typed refusal (issue 21 item 2)", async () => {
    const { wrapper } = await mountScreen(SettingsView, { path: '/settings' })
    await flush()
    const form = wrapper.get('form[aria-label="Network configuration"]')
    await form.get('input[aria-label="Network name"]').setValue('sandbox-2')
    await form.get('input[aria-label="Trading URL"]').setValue('http://127.0.0.1:1')
    await form.get('input[aria-label="WebSocket URL"]').setValue('ws://127.0.0.1:1')
    await form.get('input[aria-label="Earn URL"]').setValue('http://127.0.0.1:1')
    desk.fail('networks.save', { code: 'PassphraseIncorrect', message: 'wrong vault passphrase: adding network "sandbox-2" was not done' })
    await form.get('input[aria-label="Passphrase to save the network"]').setValue('not it')
    await form.trigger('submit')
    await flush()
    expect(desk.callsTo('networks.save')).toEqual([expect.objectContaining({ name: 'sandbox-2', passphrase: 'not it' })])
    expect(wrapper.get('[data-testid="error-code"]').text()).toBe('PassphraseIncorrect')
    expect(wrapper.text()).toMatch(/Network not saved/)
    // the passphrase is not kept in the form after a try
    expect(form.get<HTMLInputElement>('input[aria-label="Passphrase to save the network"]').element.value).toBe('')
    desk.handle('networks.save', (a) => ({
      name: a.name,
      kind: a.kind,
      chainId: a.chainId,
      tradingUrl: a.tradingUrl,
      wsUrl: a.wsUrl,
      earnUrl: a.earnUrl,
      infoRatePerSec: a.infoRatePerSec,
      tradeRatePerSec: a.tradeRatePerSec,
      strictLimits: true,
      configured: true,
    }))
    await form.get('input[aria-label="Passphrase to save the network"]').setValue('the passphrase')
    await form.trigger('submit')
    await flush()
    expect(desk.callsTo('networks.save').at(-1)).toMatchObject({ name: 'sandbox-2', passphrase: 'the passphrase' })
    expect(wrapper.find('[data-testid="error-code"]').exists()).toBe(false)
    expect(wrapper.text()).toMatch(/Network sandbox-2 saved/)
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it('Strict limits: the sandbox switch asks main (networks.update, with the passphrase), shows the new mode, and shows main refusing', async () => {
    let strict = true
    desk.handle('networks.list', () => ({
      selected: 'sandbox',
      networks: [{ ...appState().network!, strictLimits: strict, network: 'sandbox' }],
    }))
    desk.handle('networks.update', (a) => {
      strict = a.strictLimits ?? strict
      return { ...appState().network!, strictLimits: strict, network: 'sandbox' }
    })
    const { wrapper } = await mountScreen(SettingsView, { path: '/settings' })
    await flush()
    const form = wrapper.get('form[aria-label="Strict limits on the sandbox"]')
    expect(wrapper.get('.strict-note').text()).toMatch(/^Strict limits on sandbox: on\./)
    expect(wrapper.get('table[aria-label="Networks"]').text()).toContain('strict')
    await form.get('input[aria-label="Passphrase to change strict limits"]').setValue('the passphrase')
    await form.trigger('submit')
    await flush()
    expect(desk.callsTo('networks.update')).toEqual([{ name: 'sandbox', strictLimits: false, passphrase: 'the passphrase' }])
    expect(wrapper.get('.strict-note').text()).toMatch(/^Strict limits on sandbox: off\./)
    expect(wrapper.get('table[aria-label="Networks"]').text()).toContain('strict off')
    expect(form.get('button').text()).toBe('Turn strict limits on')
    expect(wrapper.text()).toContain('Strict limits off for sandbox')
    expect(await seriousA11yViolations()).toEqual([])
    desk.fail('networks.update', {
      code: 'PassphraseIncorrect',
      message: 'wrong vault passphrase: changing network "sandbox" was not done',
    })
    await form.trigger('submit')
    await flush()
    expect(wrapper.text()).toContain('Strict limits not changed')
    expect(wrapper.get('[data-testid="error-code"]').text()).toBe('PassphraseIncorrect')
    expect(wrapper.get('.strict-note').text()).toMatch(/: off\./)
    wrapper.unmount()
  })
})
