// @vitest-environment happy-dom
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { wireEvents } from '../../../app/store'
import { flush, installFakeDesk, type FakeDesk } from '../../../testing/fake-desk'
import { seriousA11yViolations } from '../../../testing/axe'
import ConfirmDialog from './ConfirmDialog.vue'

let desk: FakeDesk
let unwire: () => void

beforeEach(() => {
  desk = installFakeDesk()
  setActivePinia(createPinia())
  unwire = wireEvents()
  document.body.innerHTML = ''
})
afterEach(() => unwire())

function request(needsPassphrase: boolean) {
  desk.emit('confirm.request', {
    id: 'c1',
    title: 'Settle 1.5 USDC',
    summary: ['network sandbox (chain 424242)', 'settle 1.5 USDC from credit-1 to cash-1'],
    needsPassphrase,
    expiresAt: Date.now() + 60_000,
    origin: 'app',
  })
}

describe('ConfirmDialog', () => {
  it('shows what will be signed and asks for the passphrase only when main needs it', async () => {
    desk.handle('confirm.respond', () => ({ accepted: true }))
    const w = mount(ConfirmDialog, { attachTo: document.body })
    request(true)
    await flush()
    const dialog = document.querySelector('[role="dialog"]')
    expect(dialog?.textContent).toContain('settle 1.5 USDC from credit-1 to cash-1')
    const pass = document.querySelector<HTMLInputElement>('input[aria-label="Confirmation passphrase"]')
    expect(pass).not.toBeNull()
    const approve = document.querySelector<HTMLButtonElement>('button[aria-label="Approve and sign"]')
    expect(approve?.disabled).toBe(true)
    pass!.value = 'my secret phrase'
    pass!.dispatchEvent(new Event('input'))
    await flush()
    expect(approve?.disabled).toBe(false)
    approve!.click()
    await flush()
    expect(desk.callsTo('confirm.respond')).toEqual([{ id: 'c1', approved: true, passphrase: 'my secret phrase' }])
    w.unmount()
  })

  it('approves without a passphrase field when none is needed, and declines on request', async () => {
    desk.handle('confirm.respond', () => ({ accepted: true }))
    const w = mount(ConfirmDialog, { attachTo: document.body })
    request(false)
    await flush()
    expect(document.querySelector('input[aria-label="Confirmation passphrase"]')).toBeNull()
    document.querySelector<HTMLButtonElement>('button[aria-label="Decline and do not sign"]')!.click()
    await flush()
    expect(desk.callsTo('confirm.respond')).toEqual([{ id: 'c1', approved: false }])
    w.unmount()
  })

  it('keeps the request open and shows the code when the passphrase is wrong', async () => {
    desk.fail('confirm.respond', { code: 'PassphraseIncorrect', message: 'wrong passphrase' })
    const w = mount(ConfirmDialog, { attachTo: document.body })
    request(true)
    await flush()
    const pass = document.querySelector<HTMLInputElement>('input[aria-label="Confirmation passphrase"]')!
    pass.value = 'bad'
    pass.dispatchEvent(new Event('input'))
    await flush()
    document.querySelector<HTMLButtonElement>('button[aria-label="Approve and sign"]')!.click()
    await flush()
    expect(document.querySelector('[data-testid="error-code"]')?.textContent).toBe('PassphraseIncorrect')
    expect(document.querySelector('[role="dialog"]')).not.toBeNull()
    w.unmount()
  })

  it('closes when the request was answered in another window', async () => {
    const w = mount(ConfirmDialog, { attachTo: document.body })
    request(false)
    await flush()
    expect(document.querySelector('button[aria-label="Approve and sign"]')).not.toBeNull()
    desk.emit('confirm.closed', { id: 'c1', outcome: 'approved' })
    await flush()
    await new Promise((r) => setTimeout(r, 400)) // leave transition
    expect(document.querySelector('button[aria-label="Approve and sign"]')).toBeNull()
    expect(desk.callsTo('confirm.respond')).toEqual([])
    w.unmount()
  })
})

describe('ConfirmDialog accessibility', () => {
  it('moves focus into the dialog, keeps Tab inside, and returns focus to the invoking control when it closes', async () => {
    desk.handle('confirm.respond', () => ({ accepted: true }))
    const invoker = document.createElement('button')
    invoker.textContent = 'Sign and submit'
    document.body.appendChild(invoker)
    invoker.focus()
    const w = mount(ConfirmDialog, { attachTo: document.body })
    request(false)
    await flush()
    const dialog = document.querySelector<HTMLElement>('[role="dialog"]')!
    expect(dialog.getAttribute('aria-modal')).toBe('true')
    expect(dialog.contains(document.activeElement)).toBe(true)
    // Tab from the last control wraps to the first; Shift+Tab from the first to the last.
    const buttons = [...dialog.querySelectorAll<HTMLButtonElement>('button:not([disabled])')]
    buttons[buttons.length - 1]!.focus()
    dialog.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true }))
    expect(document.activeElement).toBe(buttons[0])
    dialog.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab', shiftKey: true, bubbles: true, cancelable: true }))
    expect(document.activeElement).toBe(buttons[buttons.length - 1])
    document.querySelector<HTMLButtonElement>('button[aria-label="Approve and sign"]')!.click()
    await flush()
    expect(desk.callsTo('confirm.respond')).toEqual([{ id: 'c1', approved: true }])
    expect(document.querySelector('[role="dialog"]')).toBeNull()
    expect(document.activeElement).toBe(invoker)
    w.unmount()
  })

  it('Escape declines', async () => {
    desk.handle('confirm.respond', () => ({ accepted: true }))
    const w = mount(ConfirmDialog, { attachTo: document.body })
    request(false)
    await flush()
    document
      .querySelector<HTMLElement>('[role="dialog"]')!
      .dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }))
    await flush()
    expect(desk.callsTo('confirm.respond')).toEqual([{ id: 'c1', approved: false }])
    w.unmount()
  })

  it('has no critical or serious violations while asking for the passphrase', async () => {
    const w = mount(ConfirmDialog, { attachTo: document.body })
    request(true)
    await flush()
    expect(document.querySelector('[role="dialog"]')).not.toBeNull()
    expect(await seriousA11yViolations()).toEqual([])
    w.unmount()
  })

  it('names the signing key (name, short address, full address on demand) and shows amounts with separators and symbol, with no axe violations', async () => {
    const owner = '0x1111111111111111111111111111111111111111'
    const to = '0x2222222222222222222222222222222222222222'
    const w = mount(ConfirmDialog, { attachTo: document.body })
    desk.emit('confirm.request', {
      id: 'c2',
      title: 'Transfer',
      summary: [`transfer 1234567.5 USDC from Treasury A (${owner}) to ${to}`],
      needsPassphrase: true,
      expiresAt: Date.now() + 60_000,
      origin: 'app',
      details: {
        signer: { role: 'owner', label: 'Treasury A', address: owner, owner },
        account: { name: 'Treasury A', address: owner },
        counterparty: { name: 'Ops', address: to },
        amount: { units: '1234567.5', symbol: 'USDC', usd: '1234567.5' },
        fees: [{ label: 'activation fee', units: '1', symbol: 'USDC', usd: null }],
        action: { type: 'transfer' },
      },
    })
    await flush()
    const signer = document.querySelector('[data-testid="confirm-signer"]')!
    expect(signer.textContent).toContain('Treasury A')
    expect(signer.textContent).toContain('0x1111…1111')
    expect(signer.textContent).toContain('owner key')
    expect(signer.textContent).not.toContain(owner)
    expect(document.querySelector('[data-testid="confirm-amount"]')?.textContent).toContain('1,234,567.5 USDC ($1,234,567.50)')
    expect(document.querySelector('[data-testid="confirm-fees"]')?.textContent).toContain('activation fee: 1 USDC')
    // No full address in the dialog until asked for.
    expect(document.querySelector('[role="dialog"]')!.textContent).not.toContain(owner)
    signer.querySelector<HTMLButtonElement>('button[aria-label$="show the full address of Treasury A"]')!.click()
    await flush()
    expect(signer.textContent).toContain(owner)
    expect(signer.querySelector('button[aria-label="Copy the address of Treasury A"]')).not.toBeNull()
    document.querySelector<HTMLButtonElement>('button[aria-controls="confirm-action"]')!.click()
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
    w.unmount()
  })
})
