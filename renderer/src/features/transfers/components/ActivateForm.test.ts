// @vitest-environment happy-dom
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seriousA11yViolations } from '../../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../../testing/fake-desk'
import { ASSETS, CASH, account, submission } from '../../../testing/fixtures'
import { mountScreen } from '../../../testing/mount'
import { useAccountsStore } from '../../accounts'
import ActivateForm from './ActivateForm.vue'

let desk: FakeDesk
const FRESH = '0x4444444444444444444444444444444444444444' as const
beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('policy.show', () => ({
    network: 'sandbox',
    coolingOffMs: 60_000,
    sandboxDefaults: true,
    rules: [],
    halted: null,
    addresses: [],
    events: [],
  }))
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})

describe('ActivateForm', () => {
  it("offers the operator's own inactive accounts, a labelled field for any other address, and the protocol fee formatted", async () => {
    const payer = account(CASH, 'balance', 'cash-1')
    const fresh = { ...account(FRESH, 'unknown', 'new-desk'), status: 'none' as const }
    const pinia = createPinia()
    setActivePinia(pinia)
    const s = useAccountsStore()
    s.accounts = [payer, fresh]
    s.assets = ASSETS
    const { wrapper: w } = await mountScreen(ActivateForm, { props: { account: payer }, pinia })
    await flush()
    const pick = w.get('select[aria-label="Account to activate"]')
    expect((pick.element as HTMLSelectElement).value).toBe(FRESH)
    expect(pick.text()).toContain('new-desk')
    expect(w.find('input[aria-label="Address to activate"]').exists()).toBe(false)
    expect(w.get('[data-testid="activation-fee"]').text()).toMatch(/Activation fee: 1 USDC, fixed by the protocol/)
    expect(w.text()).not.toContain('1.0')
    expect(await seriousA11yViolations()).toEqual([])
    desk.handle('activate.submit', () => ({
      submission: submission({ actionType: 'activateFor', state: 'accepted', outcome: 'success' }),
      leaves: [],
    }))
    document.querySelector<HTMLButtonElement>('button[aria-label="Sign and submit activation"]')!.click()
    await flush()
    expect(desk.callsTo('activate.submit')).toEqual([{ account: CASH, target: FRESH, feeAssetId: 1 }])
    await pick.setValue('other')
    const field = w.get('input[aria-label="Address to activate"]')
    // The field has a visible label, not only an aria-label.
    expect(field.element.closest('label')?.textContent).toContain('Address to activate')
    await field.setValue('0x12')
    expect(w.text()).toContain('Type a 0x-prefixed 20-byte address')
    w.unmount()
  })
})
