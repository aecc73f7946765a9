// @vitest-environment happy-dom
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { wireEvents } from '../../../app/store'
import { seriousA11yViolations } from '../../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../../testing/fake-desk'
import { CASH, CREDIT, submission } from '../../../testing/fixtures'
import ConfirmDialog from './ConfirmDialog.vue'
import WriteOutcomeTracker from '../../journal/components/WriteOutcomeTracker.vue'

let desk: FakeDesk
let unwire: () => void
beforeEach(() => {
  desk = installFakeDesk()
  setActivePinia(createPinia())
  unwire = wireEvents()
  document.body.innerHTML = ''
})
afterEach(() => {
  unwire()
  document.body.innerHTML = ''
})
const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)

describe('ConfirmDialog with structured details', () => {
  it('shows network, account and counterparty by name and address, amount with USD, fees, passed checks, and the exact action on request', async () => {
    const w = mount(ConfirmDialog, { attachTo: document.body })
    desk.emit('confirm.request', {
      id: 'c9',
      title: 'Withdraw 20 USDC',
      summary: ['Network: sandbox (chain 424242)', 'withdraw 20 USDC from cash-1 to cold on chain 1'],
      needsPassphrase: false,
      expiresAt: Date.now() + 60_000,
      origin: 'app',
      details: {
        network: { name: 'sandbox', chainId: 424242, kind: 'sandbox' },
        account: { name: 'cash-1', address: CASH },
        counterparty: { name: 'cold', address: CREDIT, chainId: '1' },
        amount: { units: '20', symbol: 'USDC', usd: '20' },
        fees: [{ label: 'withdrawal fee', units: '1', symbol: 'USDC', usd: null }],
        policyChecks: [
          'destination "cold" is in the address book for chain 1, usable since 2026-11-24 00:00:00',
          'within withdraw-limit-usd (25 USD)',
        ],
        action: { type: 'withdraw', amount: '20000000', dst_chain_id: '1' },
      },
    })
    await flush()
    const d = document.querySelector('[role="dialog"]')!
    expect(d.textContent).toContain('Network: sandbox (sandbox, chain id 424242)')
    // Name and short address; the full address is on demand (the address button), never inline.
    expect(d.querySelector('[data-testid="confirm-account"]')!.textContent).toContain(`cash-1${CASH.slice(0, 6)}…${CASH.slice(-4)}`)
    expect(d.querySelector('[data-testid="confirm-counterparty"]')!.textContent).toContain(`cold${CREDIT.slice(0, 6)}…${CREDIT.slice(-4)}`)
    expect(d.querySelector('[data-testid="confirm-counterparty"]')!.textContent).toContain('on chain 1')
    expect(d.querySelector('[data-testid="confirm-amount"]')!.textContent).toBe('20 USDC ($20.00)')
    expect(d.querySelector('[data-testid="confirm-fees"]')!.textContent).toBe('withdrawal fee: 1 USDC')
    expect(d.querySelector('[aria-label="Policy checks passed"]')!.textContent).toContain('within withdraw-limit-usd')
    expect(d.querySelector('[aria-label="Exact action to be signed"]')).toBeNull()
    const show = [...d.querySelectorAll('button')].find((b) => b.textContent?.includes('Show exact action'))!
    show.click()
    await flush()
    expect(d.querySelector('[aria-label="Exact action to be signed"]')!.textContent).toContain('"dst_chain_id": "1"')
    expect(await seriousA11yViolations()).toEqual([])
    w.unmount()
  })
})

describe('WriteOutcomeTracker', () => {
  it('a write that failed at execution is a failure with its code and advice, never a success tag', async () => {
    const s = submission({
      state: 'failed',
      outcome: 'failed',
      code: 'TradeFailed',
      advice: 'It executed and failed on the exchange: check the balances before trying again.',
    })
    const w = mount(WriteOutcomeTracker, { props: { submission: s }, attachTo: document.body })
    await flush()
    const tag = w.get('[data-testid="submission-outcome"]')
    expect(tag.text()).toBe('failed')
    expect(tag.attributes('data-tone')).toBe('error')
    expect(w.text()).toContain('FAILED at execution (TradeFailed)')
    expect(w.get('[data-testid="outcome-advice"]').text()).toContain('check the balances')
    w.unmount()
  })

  it('names the key that signed: an API key of the account (orders) or its owner key', async () => {
    const agent = '0x9999999999999999999999999999999999999999' as const
    const byAgent = mount(WriteOutcomeTracker, {
      props: { submission: submission({ actionType: 'order', signer: agent }) },
      attachTo: document.body,
    })
    await flush()
    expect(byAgent.get('[data-testid="outcome-signer"]').text()).toContain('API key of')
    expect(byAgent.get('[data-testid="outcome-signer"]').text()).toContain('0x9999…9999')
    byAgent.unmount()
    const byOwner = mount(WriteOutcomeTracker, { props: { submission: submission() }, attachTo: document.body })
    await flush()
    expect(byOwner.get('[data-testid="outcome-signer"]').text()).toContain('(owner key)')
    byOwner.unmount()
  })

  it('unresolved shows its advice and what was checked, and records an acknowledgement with a note', async () => {
    const s = submission({
      id: '42',
      state: 'unresolved',
      outcome: 'unresolved',
      code: 'OutcomeUnknown',
      advice: 'Check the exchange for this cloid before any new attempt.',
      evidence: JSON.stringify({ orderStatus: 'unknownOid', fills: 0 }),
    })
    desk.handle('journal.acknowledge', (a) => ({
      ...s,
      acknowledgedAt: 5000,
      updatedAt: s.updatedAt + 1,
      history: [...s.history, { state: 'unresolved', code: null, atMs: 5000, note: a.note }],
    }))
    const w = mount(WriteOutcomeTracker, { props: { submission: s }, attachTo: document.body })
    await flush()
    expect(w.get('[data-testid="submission-outcome"]').text()).toBe('unresolved')
    expect(w.text()).toContain('Check the exchange for this cloid')
    expect(w.get('[aria-label="Evidence checked"]').text()).toContain('orderStatus: unknownOid')
    button('Acknowledge unresolved outcome')!.click()
    await flush()
    expect(button('Record acknowledgement')!.disabled).toBe(true) // a note is required
    expect(await seriousA11yViolations()).toEqual([])
    await w.get('textarea[aria-label="Acknowledgement note"]').setValue('checked fills: none, order not on the book')
    button('Record acknowledgement')!.click()
    await flush()
    expect(desk.callsTo('journal.acknowledge')).toEqual([{ id: '42', note: 'checked fills: none, order not on the book' }])
    expect(w.get('[data-testid="acknowledged"]').text()).toMatch(/^Acknowledged at/)
    w.unmount()
  })
})
