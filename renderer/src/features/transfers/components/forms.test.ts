// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PolicyView, PreviewView } from '../../../../../main/contract/types'
import { seriousA11yViolations } from '../../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../../testing/fake-desk'
import { ASSETS, CASH, CREDIT, account, submission } from '../../../testing/fixtures'
import { mountScreen } from '../../../testing/mount'
import { useAccountsStore } from '../../accounts'
import TransferForm from './TransferForm.vue'
import WithdrawForm from './WithdrawForm.vue'

let desk: FakeDesk
const NOW = Date.now()
const OTHER = '0x3333333333333333333333333333333333333333' as const
const COLD = '0x52908400098527886E0F7030069857D2E4169EE7' as const
const NEW = '0x000000000000000000000000000000000000bEEF' as const
const policy = (over: Partial<PolicyView> = {}): PolicyView => ({
  network: 'sandbox',
  coolingOffMs: 60_000,
  sandboxDefaults: true,
  rules: [],
  halted: null,
  addresses: [
    { label: 'cold', address: COLD, chainId: '1', addedAt: NOW - 120_000, usableAt: NOW - 60_000, usable: true },
    { label: 'new', address: NEW, chainId: '1', addedAt: NOW, usableAt: NOW + 60_000, usable: false },
    { label: 'arb', address: OTHER, chainId: '42161', addedAt: NOW - 120_000, usableAt: NOW - 60_000, usable: true },
  ],
  events: [],
  ...over,
})
const preview = (warnings: string[] = []): PreviewView => ({
  title: 'Transfer 5 USDC',
  summary: ['Network: sandbox', 'To cold'],
  action: { type: 'transfer' },
  effects: [{ account: CASH, label: 'available', assetSymbol: 'USDC', before: '10', after: '5' }],
  warnings,
})

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [account(CASH, 'balance', 'cash-1'), account(CREDIT, 'balance', 'cash-2')])
  desk.handle('policy.show', () => policy())
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})
const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)
const options = (label: string) =>
  [...document.querySelectorAll<HTMLOptionElement>(`select[aria-label="${label}"] option`)].map((o) => ({
    text: o.textContent ?? '',
    disabled: o.disabled,
    value: o.value,
  }))

async function mountForm(component: typeof TransferForm | typeof WithdrawForm) {
  const m = await mountScreen(component, { props: { account: account(CASH, 'balance', 'cash-1') } })
  const accounts = useAccountsStore()
  await accounts.load()
  accounts.assets = ASSETS
  await flush()
  return m.wrapper
}

describe('WithdrawForm', () => {
  it('offers only address-book entries of the chosen chain; cooling-off entries are disabled with their usable time', async () => {
    const w = await mountForm(WithdrawForm)
    expect(
      options('Destination chain')
        .filter((o) => o.value)
        .map((o) => o.value),
    ).toEqual(['1', '42161'])
    await w.get('select[aria-label="Destination chain"]').setValue('1')
    const dest = options('Destination').filter((o) => o.value)
    expect(dest.map((o) => o.value)).toEqual(['cold', 'new'])
    expect(dest[0]!.disabled).toBe(false)
    expect(dest[1]).toMatchObject({ disabled: true })
    expect(dest[1]!.text).toMatch(/cooling off, usable at \d{4}-\d\d-\d\d/)
    await w.get('select[aria-label="Withdraw asset"]').setValue('1')
    await w.get('input[aria-label="Withdraw amount"]').setValue('20')
    expect(button('Preview withdrawal')!.disabled).toBe(true)
    expect(button('Sign and submit withdrawal')).toBeNull()
    await w.get('select[aria-label="Destination"]').setValue('cold')
    // previewed first, from live state, with the age of the data behind it
    desk.handle('withdraw.preview', () => ({ ...preview(), title: 'Withdraw 20 USDC', dataAgeMs: 2_000, dataMaxAgeMs: 30_000 }))
    button('Preview withdrawal')!.click()
    await flush()
    expect(desk.callsTo('withdraw.preview')).toEqual([{ account: CASH, assetId: 1, amount: '20', dstChainId: '1', dstAddress: COLD }])
    expect(w.get('[data-testid="preview-age"]').text()).toBe('Data 2 s old (limit 30 s)')
    expect(button('Sign and submit withdrawal')!.disabled).toBe(false)
    expect(await seriousA11yViolations()).toEqual([])

    // a limit refusal is shown with its figures
    desk.fail('withdraw.submit', {
      code: 'LimitExceeded',
      message: 'withdraw of 20 USDC exceeds the rolling 24 h limit',
      details: { code: 'LimitExceeded', rule: 'withdraw-daily-limit-usd', limit: '25', used: '10', amount: '20', freesAt: NOW + 3_600_000 },
    })
    button('Sign and submit withdrawal')!.click()
    await flush()
    expect(desk.callsTo('withdraw.submit')).toEqual([{ account: CASH, assetId: 1, amount: '20', dstChainId: '1', dstAddress: COLD }])
    const facts = w.get('[data-testid="refusal-facts"]').text()
    expect(facts).toContain('Limit$25.00')
    expect(facts).toContain('Already used (last 24 h)$10.00')
    expect(facts).toContain('This amount$20.00')
    expect(facts).toMatch(/Room frees up at\d{4}-\d\d-\d\d/)
    expect(w.get('[data-testid="error-code"]').text()).toBe('LimitExceeded')

    // accepted: the amount is cleared, so the same withdrawal cannot go twice by a second click
    desk.handle('withdraw.submit', () => ({
      submission: submission({ actionType: 'withdraw', state: 'accepted', outcome: 'success' }),
      leaves: [],
    }))
    button('Sign and submit withdrawal')!.click()
    await flush()
    expect(w.get('[data-testid="submission-outcome"]').text()).toBe('success')
    expect((w.get('input[aria-label="Withdraw amount"]').element as HTMLInputElement).value).toBe('')
    expect(button('Sign and submit withdrawal')).toBeNull()
    w.unmount()
  })

  it('every write button is disabled while trading is halted', async () => {
    desk.handle('policy.show', () => policy({ halted: { since: NOW } }))
    const w = await mountForm(WithdrawForm)
    await w.get('select[aria-label="Destination chain"]').setValue('1')
    await w.get('select[aria-label="Destination"]').setValue('cold')
    await w.get('select[aria-label="Withdraw asset"]').setValue('1')
    await w.get('input[aria-label="Withdraw amount"]').setValue('1')
    expect(button('Preview withdrawal')!.disabled).toBe(true)
    expect(w.text()).toContain('Trading is halted')
    w.unmount()
  })
})

describe('TransferForm', () => {
  it('sends to own accounts or usable address-book entries; a preview predicting a refusal cannot be signed', async () => {
    const w = await mountForm(TransferForm)
    const to = options('Transfer to').filter((o) => o.value)
    expect(to.map((o) => o.value)).toEqual([CREDIT, COLD, NEW, OTHER])
    expect(to.find((o) => o.value === NEW)!.disabled).toBe(true)
    await w.get('select[aria-label="Transfer to"]').setValue(COLD)
    await w.get('select[aria-label="Transfer asset"]').setValue('1')
    await w.get('input[aria-label="Transfer amount"]').setValue('5')
    desk.handle('transfer.preview', () =>
      preview(['Refused by policy (LimitExceeded): transfer of 5 USDC exceeds the per-transaction limit of 1 USD. Nothing was signed.']),
    )
    button('Preview transfer')!.click()
    await flush()
    expect(button('Sign and submit transfer')!.disabled).toBe(true)
    expect(w.get('[data-testid="sign-blocked"]').text()).toContain('Cannot sign: Refused by policy (LimitExceeded)')

    // a short balance blocks it too
    desk.handle('transfer.preview', () =>
      preview(['cash-1 has only 1 USDC available: the service will refuse with InsufficientSpotBalance.']),
    )
    await w.get('input[aria-label="Transfer amount"]').setValue('4')
    button('Preview transfer')!.click()
    await flush()
    expect(button('Sign and submit transfer')!.disabled).toBe(true)

    // a clean preview signs once; the form resets so a second click cannot send it again
    desk.handle('transfer.preview', () => preview())
    desk.handle('transfer.submit', () => ({
      submission: submission({ actionType: 'transfer', state: 'accepted', outcome: 'success' }),
      leaves: [],
    }))
    await w.get('input[aria-label="Transfer amount"]').setValue('3')
    button('Preview transfer')!.click()
    await flush()
    expect(button('Sign and submit transfer')!.disabled).toBe(false)
    button('Sign and submit transfer')!.click()
    await flush()
    expect(desk.callsTo('transfer.submit')).toEqual([{ from: CASH, to: COLD, assetId: 1, amount: '3' }])
    expect(button('Sign and submit transfer')).toBeNull()
    expect(button('Preview transfer')!.disabled).toBe(true)
    expect((w.get('input[aria-label="Transfer amount"]').element as HTMLInputElement).value).toBe('')
    w.unmount()
  })
})

describe('Preview data age', () => {
  it('a preview on data past the age limit says so and cannot be signed until previewed again', async () => {
    const w = await mountForm(WithdrawForm)
    await w.get('select[aria-label="Destination chain"]').setValue('1')
    await w.get('select[aria-label="Destination"]').setValue('cold')
    await w.get('select[aria-label="Withdraw asset"]').setValue('1')
    await w.get('input[aria-label="Withdraw amount"]').setValue('20')
    desk.handle('withdraw.preview', () => ({ ...preview(), dataAgeMs: 31_000, dataMaxAgeMs: 30_000 }))
    button('Preview withdrawal')!.click()
    await flush()
    expect(w.get('[data-testid="preview-age"]').text()).toBe('Data 31 s old, over the 30 s limit: preview again to sign.')
    expect(button('Sign and submit withdrawal')!.disabled).toBe(true)
    expect(button('Preview withdrawal')!.disabled).toBe(false)
    // previewed again on fresh data: signable
    desk.handle('withdraw.preview', () => ({ ...preview(), dataAgeMs: 0, dataMaxAgeMs: 30_000 }))
    button('Preview withdrawal')!.click()
    await flush()
    expect(w.get('[data-testid="preview-age"]').text()).toBe('Data 0 s old (limit 30 s)')
    expect(button('Sign and submit withdrawal')!.disabled).toBe(false)
    expect(await seriousA11yViolations()).toEqual([])
    w.unmount()
  })
})
