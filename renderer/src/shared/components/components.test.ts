// @vitest-environment happy-dom
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { beforeEach, describe, expect, it } from 'vitest'
import { DeskCallError } from '../desk-call-error'
import Amount from './Amount.vue'
import AmountInput from './AmountInput.vue'
import ErrorNotice from './ErrorNotice.vue'
import PreviewPanel from './PreviewPanel.vue'
import { seriousA11yViolations } from '../../testing/axe'

beforeEach(() => setActivePinia(createPinia()))

describe('Amount', () => {
  it('shows an unknown value as "unknown", never as zero', () => {
    const w = mount(Amount, { props: { value: null, usd: true } })
    expect(w.text()).toContain('unknown')
    expect(w.text()).not.toMatch(/\$?0(\.0+)?$/)
  })
  it('puts the sign before the dollar of a negative USD value', () => {
    expect(mount(Amount, { props: { value: '-12000', usd: true } }).text()).toBe('-$12,000.00')
  })
  it('labels a stale value and keeps its exact digits', () => {
    const w = mount(Amount, { props: { value: '1234.50000001', symbol: 'BTC', stale: true } })
    expect(w.text()).toContain('1,234.50000001 BTC')
    expect(w.text()).toContain('stale')
  })
})

describe('Amount in USD', () => {
  it('shows cents in the table and the exact value on hover (issue 24: "$727,023.61406174" in a headline)', () => {
    const w = mount(Amount, { props: { value: '727023.61406174', usd: true } })
    expect(w.text()).toBe('$727,023.61')
    expect(w.get('.amount').attributes('title')).toBe('exactly $727,023.61406174')
    const exact = mount(Amount, { props: { value: '1250.5', usd: true } })
    expect(exact.text()).toBe('$1,250.50')
    expect(exact.get('.amount').attributes('title')).toBeUndefined()
  })
})

describe('Amount as a reading (issue 31: Earn showed "49,000.08483638" and a yield "0.00605975")', () => {
  it('shows the asset display precision with its symbol, the exact amount on hover', () => {
    const w = mount(Amount, { props: { value: '49000.08483638', symbol: 'USDC', display: true } })
    expect(w.text()).toBe('49,000.08 USDC')
    expect(w.get('.amount').attributes('title')).toBe('exactly 49,000.08483638 USDC')
    expect(mount(Amount, { props: { value: '0.00605975', symbol: 'USDC', display: true } }).text()).toBe('<0.01 USDC')
    const btc = mount(Amount, { props: { value: '2.12345678', symbol: 'BTC', display: true } })
    expect(btc.text()).toBe('2.12345678 BTC')
    expect(btc.get('.amount').attributes('title')).toBeUndefined()
  })
  it('keeps every digit of an amount that is not a reading', () => {
    expect(mount(Amount, { props: { value: '1250.123', symbol: 'USDC' } }).text()).toBe('1,250.123 USDC')
  })
  it('in a table whose Asset column names the asset: its precision, without the symbol; the exact amount on hover', () => {
    const w = mount(Amount, { props: { value: '246950.123456', symbol: 'USDC', display: true, noSymbol: true } })
    expect(w.text()).toBe('246,950.12')
    expect(w.get('.amount').attributes('title')).toBe('exactly 246,950.123456 USDC')
    expect(mount(Amount, { props: { value: '0.004', symbol: 'USDC', display: true, noSymbol: true } }).text()).toBe('<0.01')
    expect(mount(Amount, { props: { value: '-2.9', symbol: 'ETH', display: true, noSymbol: true } }).text()).toBe('-2.9')
  })
})

describe('AmountInput', () => {
  it('rejects more decimals than the asset allows while typing, and says why', async () => {
    const w = mount(AmountInput, { props: { modelValue: '', decimals: 6, label: 'Amount', symbol: 'USDC' } })
    const input = w.get('input[aria-label="Amount"]')
    await input.setValue('1.1234567')
    expect(w.emitted('valid')?.at(-1)).toEqual([false])
    await w.setProps({ modelValue: '1.1234567' })
    expect(input.attributes('aria-invalid')).toBe('true')
    expect(w.get('[role="alert"]').text()).toMatch(/at most 6 decimals/)
  })
  it('accepts an exact amount at the asset precision', async () => {
    const w = mount(AmountInput, { props: { modelValue: '', decimals: 6, label: 'Amount' } })
    await w.get('input').setValue('1.123456')
    expect(w.emitted('valid')?.at(-1)).toEqual([true])
    expect(w.emitted('update:modelValue')?.at(-1)).toEqual(['1.123456'])
    await w.setProps({ modelValue: '1.123456' })
    expect(w.get('input').attributes('aria-invalid')).toBe('false')
    expect(w.find('[role="alert"]').exists()).toBe(false)
  })
  it('stays invalid until an asset (and so a precision) is chosen', async () => {
    const w = mount(AmountInput, { props: { modelValue: '', decimals: null, label: 'Amount' } })
    await w.get('input').setValue('1')
    expect(w.emitted('valid')?.at(-1)).toEqual([false])
    expect(w.text()).toContain('pick an asset first')
  })
})

describe('ErrorNotice', () => {
  it('shows the code, the service message and what to do', () => {
    const w = mount(ErrorNotice, { props: { error: new DeskCallError({ code: 'InsufficientSpotBalance', message: 'not enough USDC' }) } })
    expect(w.get('[data-testid="error-code"]').text()).toBe('InsufficientSpotBalance')
    expect(w.text()).toContain('not enough USDC')
    expect(w.get('[data-testid="error-advice"]').text()).toMatch(/Lower the amount or fund the account/)
    expect(w.find('[role="alert"]').exists()).toBe(true)
  })
  it('renders nothing without an error', () => {
    const w = mount(ErrorNotice, { props: { error: null } })
    expect(w.text()).toBe('')
  })
})

describe('ErrorNotice titles', () => {
  it('a declined signature is neutral whatever the caller titled it; an unknown outcome is not called failed', () => {
    const declined = mount(ErrorNotice, {
      props: {
        error: new DeskCallError({ code: 'ConfirmationDeclined', message: 'the operator declined: Transfer' }),
        title: 'Earn action failed',
      },
    })
    expect(declined.text()).toContain('Declined — nothing was signed')
    expect(declined.text()).not.toContain('failed')
    expect(declined.find('[data-testid="declined-notice"]').exists()).toBe(true)
    const unknown = mount(ErrorNotice, {
      props: { error: new DeskCallError({ code: 'TradeOutcomeUnknown', message: 'sent, answer lost' }), title: 'Cancel failed' },
    })
    expect(unknown.text()).toContain('Cancel: outcome unknown when sent')
    const failed = mount(ErrorNotice, {
      props: { error: new DeskCallError({ code: 'InsufficientSpotBalance', message: 'x' }), title: 'Cancel failed' },
    })
    expect(failed.text()).toContain('Cancel failed')
  })
})

describe('ErrorNotice for a team proposal', () => {
  it('a guardrail change the team policy put behind approvals is shown as sent for approval, not as a failure', () => {
    const w = mount(ErrorNotice, {
      props: {
        error: new DeskCallError({
          code: 'TeamSettingsProposed',
          message: 'Address book: add "warm" 0xabc… on chain 1: proposal 0x12345678… needs 1 approver',
        }),
        title: 'Entry not added',
      },
    })
    expect(w.find('[data-testid="proposed-notice"]').exists()).toBe(true)
    expect(w.text()).toContain('Sent for approval — nothing changed yet')
    expect(w.text()).toContain('Address book: add "warm"')
    expect(w.text()).not.toContain('Entry not added')
  })
})

describe('PreviewPanel (issue 31: previews name accounts; amounts in one format)', () => {
  const A = '0x9bf0aa11bb22cc33dd44ee55ff66aa77bb88a745' as const
  const B = '0x30f5ed42beee34d60256853866e3b852ea8a3ac9' as const
  const labelOf = (a: string) => (a.toLowerCase() === A ? 'Treasury main (0x9bf0…a745)' : `${a.slice(0, 6)}…${a.slice(-4)}`)
  it('names accounts instead of full raw addresses and shows balances with separators and the symbol', async () => {
    const w = mount(PreviewPanel, {
      props: {
        labelOf,
        preview: {
          title: 'Transfer 1,250.5 USDC',
          summary: [`From Treasury main (${A}), signed by its owner key`, `to ${A}`, `To ${B}`],
          action: { type: 'transfer' },
          effects: [{ account: A, label: 'sender available', assetSymbol: 'USDC', before: '76520', after: '64174.33483638' }],
          warnings: [],
          dataAgeMs: 1000,
          dataMaxAgeMs: 30_000,
        },
      },
      attachTo: document.body,
    })
    const lines = w.findAll('.summary li').map((l) => l.text())
    expect(lines).toEqual(['From Treasury main (0x9bf0…a745), signed by its owner key', 'to Treasury main (0x9bf0…a745)', 'To 0x30f5…3ac9'])
    expect(w.text()).not.toMatch(/0x[0-9a-f]{40}(?!")/)
    const cells = w.findAll('.effects tbody td.num').map((c) => c.text())
    expect(cells).toEqual(['76,520 USDC', '64,174.33 USDC'])
    expect(await seriousA11yViolations(w.element)).toEqual([])
    w.unmount()
  })
})
