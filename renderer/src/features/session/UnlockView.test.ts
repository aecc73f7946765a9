// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { appState, account } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import { seriousA11yViolations } from '../../testing/axe'
import UnlockView from './UnlockView.vue'

let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('networks.list', () => ({ selected: 'sandbox', networks: [{ ...appState().network, network: 'sandbox' }] }))
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})
const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)

describe('UnlockView', () => {
  it('on first run gives strength feedback and only creates a vault with an acceptable, repeated passphrase', async () => {
    desk.handle('app.state', () => appState({ vault: { exists: false, unlocked: false, lastPassphraseAt: null, autoLockMinutes: 15 } }))
    desk.handle('vault.create', () => ({ exists: true, unlocked: true, lastPassphraseAt: 1, autoLockMinutes: 15 }))
    desk.handle('accounts.list', () => [])
    const { wrapper } = await mountScreen(UnlockView, { path: '/unlock' })
    await flush()
    await wrapper.get('input[aria-label="New vault passphrase"]').setValue('password1234')
    expect(wrapper.get('[data-testid="passphrase-strength"]').text()).toMatch(/too weak — not a common password/)
    expect(button('Create vault')?.disabled).toBe(true)
    await wrapper.get('input[aria-label="New vault passphrase"]').setValue('Tulip-harbor-Violet-9-anchor')
    await wrapper.get('input[aria-label="Repeat vault passphrase"]').setValue('Tulip-harbor-Violet-9-ancho')
    expect(wrapper.text()).toContain('The two passphrases differ.')
    expect(button('Create vault')?.disabled).toBe(true)
    await wrapper.get('input[aria-label="Repeat vault passphrase"]').setValue('Tulip-harbor-Violet-9-anchor')
    expect(wrapper.get('[data-testid="passphrase-strength"]').text()).toMatch(/strong/)
    button('Create vault')!.click()
    await flush()
    expect(desk.callsTo('vault.create')).toEqual([{ passphrase: 'Tulip-harbor-Violet-9-anchor' }])
    expect(wrapper.text()).toContain('Add accounts')
    wrapper.unmount()
  })

  it('shows a wrong passphrase with its code and advice', async () => {
    desk.handle('app.state', () => appState({ vault: { exists: true, unlocked: false, lastPassphraseAt: null, autoLockMinutes: 15 } }))
    desk.fail('vault.unlock', { code: 'PassphraseIncorrect', message: 'The passphrase does not open this vault.' })
    const { wrapper } = await mountScreen(UnlockView, { path: '/unlock' })
    await flush()
    await wrapper.get('input[aria-label="Vault passphrase"]').setValue('nope')
    button('Unlock')!.click()
    await flush()
    expect(wrapper.get('[data-testid="error-code"]').text()).toBe('PassphraseIncorrect')
    expect(wrapper.get('[data-testid="error-advice"]').text()).toMatch(/Type it again/)
    wrapper.unmount()
  })

  it('after unlocking with known accounts goes to the requested screen', async () => {
    desk.handle('app.state', () => appState({ vault: { exists: true, unlocked: false, lastPassphraseAt: null, autoLockMinutes: 15 } }))
    desk.handle('vault.unlock', () => ({ exists: true, unlocked: true, lastPassphraseAt: 1, autoLockMinutes: 15 }))
    desk.handle('accounts.list', () => [account('0x1111111111111111111111111111111111111111', 'credit', 'credit-1')])
    const { wrapper, router } = await mountScreen(UnlockView, { path: '/unlock?next=/journal' })
    await flush()
    await wrapper.get('input[aria-label="Vault passphrase"]').setValue('right one')
    button('Unlock')!.click()
    await flush()
    expect(router.currentRoute.value.fullPath).toBe('/journal')
    wrapper.unmount()
  })
})

describe('UnlockView accessibility', () => {
  it('has no critical or serious violations on first run, at the add-accounts step and when unlocking', async () => {
    desk.handle('app.state', () => appState({ vault: { exists: false, unlocked: false, lastPassphraseAt: null, autoLockMinutes: 15 } }))
    desk.handle('vault.create', () => ({ exists: true, unlocked: true, lastPassphraseAt: 1, autoLockMinutes: 15 }))
    desk.handle('accounts.list', () => [])
    const first = await mountScreen(UnlockView, { path: '/unlock' })
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
    await first.wrapper.get('input[aria-label="New vault passphrase"]').setValue('Tulip-harbor-Violet-9-anchor')
    await first.wrapper.get('input[aria-label="Repeat vault passphrase"]').setValue('Tulip-harbor-Violet-9-anchor')
    button('Create vault')!.click()
    await flush()
    expect(first.wrapper.text()).toContain('Add accounts')
    expect(await seriousA11yViolations()).toEqual([])
    first.wrapper.unmount()

    desk.handle('app.state', () => appState({ vault: { exists: true, unlocked: false, lastPassphraseAt: null, autoLockMinutes: 15 } }))
    const unlock = await mountScreen(UnlockView, { path: '/unlock' })
    await flush()
    expect(document.querySelector('input[aria-label="Vault passphrase"]')).not.toBeNull()
    expect(await seriousA11yViolations()).toEqual([])
    unlock.wrapper.unmount()
  })
})
