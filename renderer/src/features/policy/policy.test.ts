// @vitest-environment happy-dom
import { mount } from '@vue/test-utils'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { HaltResult, PolicyView as PolicyViewData } from '../../../../main/contract/types'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { CASH, CREDIT, account } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import { DeskCallError } from '../../shared/desk-call-error'
import HaltButton from './components/HaltButton.vue'
import HaltPanel from './components/HaltPanel.vue'
import PolicyView from './PolicyView.vue'
import { blockingWarning, refusalFacts } from './refusal'

let desk: FakeDesk
const NOW = Date.now()
const DEST = '0x52908400098527886E0F7030069857D2E4169EE7' as const

function policyView(over: Partial<PolicyViewData> = {}): PolicyViewData {
  return {
    network: 'sandbox',
    coolingOffMs: 60_000,
    sandboxDefaults: true,
    rules: [
      { name: 'price-band', value: '5', unit: 'percent from the mark or the far side of the book', pending: null },
      {
        name: 'withdraw-limit-usd',
        value: '15',
        unit: 'USD per transaction',
        pending: { value: '1000', requestedAt: NOW, effectiveAt: NOW + 60_000 },
      },
    ],
    halted: null,
    addresses: [
      { label: 'cold', address: DEST, chainId: '1', addedAt: NOW - 120_000, usableAt: NOW - 60_000, usable: true },
      {
        label: 'new',
        address: '0x000000000000000000000000000000000000bEEF',
        chainId: '42161',
        addedAt: NOW,
        usableAt: NOW + 60_000,
        usable: false,
      },
    ],
    events: [{ id: 1, at: NOW, kind: 'policy.pending', summary: 'withdraw-limit-usd: 15 USD -> 1000 USD (loosened)' }],
    ...over,
  }
}

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [account(CREDIT, 'credit', 'credit-1'), account(CASH, 'balance', 'cash-1')])
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})
const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)

describe('PolicyView', () => {
  it('shows rules with pending loosenings and their effective time, the address book with cooling-off, and events', async () => {
    desk.handle('policy.show', () => policyView())
    const { wrapper } = await mountScreen(PolicyView)
    await flush()
    const rules = wrapper.get('[aria-label="Policy rules"]').text()
    expect(rules).toContain('price-band')
    expect(rules).toContain('5%')
    expect(rules).toMatch(/\$1,000.00 in force at \d{4}-\d\d-\d\d/)
    expect(wrapper.get('[data-testid="usable-cold"]').text()).toBe('usable')
    expect(wrapper.get('[data-testid="usable-new"]').text()).toMatch(/^usable at \d{4}-\d\d-\d\d .* \(in [0-9ms ]+\)$/)
    expect(wrapper.get('[aria-label="Policy events"]').text()).toContain('loosened')
    expect(wrapper.text()).toContain('the sandbox default')
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it('events and the cooling-off read as words and local times with their age, never ISO stamps or "ms" (issue 24 item 3)', async () => {
    desk.handle('policy.show', () =>
      policyView({
        rules: [{ name: 'cooling-off', value: '60000', unit: 'ms', pending: null }],
        exchange: {
          description: 'chain 424242 at http://127.0.0.1:47100',
          chainId: 424242,
          trading: 'http://127.0.0.1:47100',
          earn: 'http://127.0.0.1:47100',
          aliases: ['sandbox', 'sandbox-2'],
        },
        events: [
          {
            id: 2,
            at: NOW - 90_000,
            kind: 'resume',
            summary: 'writes resumed on every network after a halt of 1 minute 30 seconds',
            times: { haltedSince: NOW - 180_000 },
          },
          {
            id: 1,
            at: NOW - 120_000,
            kind: 'policy.pending',
            summary: 'withdraw-limit-usd: $15.00 -> $1,000.00 (loosened; in force after the 1 minute cooling-off)',
            times: { effectiveAt: NOW + 60_000 },
          },
        ],
      }),
    )
    const { wrapper } = await mountScreen(PolicyView)
    await flush()
    const rules = wrapper.get('[aria-label="Policy rules"]').text()
    expect(rules).toContain('1 minute')
    expect(rules).not.toMatch(/1m 0s|\bms\b/)
    const events = wrapper.get('[aria-label="Policy events"]').text()
    expect(events).not.toMatch(/\d{4}-\d\d-\d\dT/)
    // the one format: local 24-hour time with its zone, the age beside it
    expect(events).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ \(1m \d+s ago\) resume/)
    // the screen ticks its own clock once a second, so the age may still read 2m 59s
    expect(events).toMatch(/halted since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ \((2m 59s|3m \d+s) ago\)/)
    expect(events).toMatch(/in force at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ \(in [0-9ms ]+\)/)
    expect(wrapper.get('[data-testid="policy-exchange"]').text()).toContain('sandbox, sandbox-2')
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it('a tightening applies without a passphrase; a loosening asks for it and shows when it takes effect', async () => {
    desk.handle('policy.show', () => policyView())
    const sets: unknown[] = []
    desk.handle('policy.set', (a) => {
      sets.push(a)
      if (a.value === '1' || a.passphrase) {
        return policyView({
          rules: [
            {
              name: 'max-order-usd',
              value: a.passphrase ? '1' : a.value,
              unit: 'USD per order',
              pending: a.passphrase ? { value: a.value, requestedAt: NOW, effectiveAt: NOW + 60_000 } : null,
            },
          ],
        })
      }
      throw new Error('unreachable')
    })
    const { wrapper } = await mountScreen(PolicyView)
    await flush()
    await wrapper.get('select[aria-label="Rule"]').setValue('max-order-usd')
    await wrapper.get('input[aria-label="New value"]').setValue('1')
    button('Apply rule change')!.click()
    await flush()
    expect(sets).toEqual([{ name: 'max-order-usd', value: '1' }])
    expect(wrapper.text()).toContain('max-order-usd is now $1.00 (in force now)')

    // loosening: main answers PassphraseRequired first
    desk.fail('policy.set', { code: 'PassphraseRequired', message: 'loosening max-order-usd needs the vault passphrase' })
    await wrapper.get('input[aria-label="New value"]').setValue('500')
    button('Apply rule change')!.click()
    await flush()
    const pass = wrapper.get('input[aria-label="Passphrase to loosen the rule"]')
    expect(wrapper.text()).toContain('It takes effect after the cooling-off')
    expect(button('Loosen after the cooling-off')!.disabled).toBe(true)
    desk.handle('policy.set', (a) => {
      sets.push(a)
      return policyView({
        rules: [
          {
            name: 'max-order-usd',
            value: '1',
            unit: 'USD per order',
            pending: { value: a.value, requestedAt: NOW, effectiveAt: NOW + 60_000 },
          },
        ],
      })
    })
    await pass.setValue('my vault phrase')
    button('Loosen after the cooling-off')!.click()
    await flush()
    expect(sets.at(-1)).toEqual({ name: 'max-order-usd', value: '500', passphrase: 'my vault phrase' })
    expect(wrapper.text()).toMatch(/loosening to \$500.00 is pending; in force at \d{4}/)
    expect(wrapper.find('input[aria-label="Passphrase to loosen the rule"]').exists()).toBe(false)
    wrapper.unmount()
  })

  it('adds and removes address-book entries with the passphrase; a bad checksum shows its code', async () => {
    let view = policyView()
    desk.handle('policy.show', () => view)
    desk.fail('addresses.add', { code: 'InvalidAddressChecksum', message: 'address has a wrong EIP-55 checksum' })
    const { wrapper } = await mountScreen(PolicyView)
    await flush()
    await wrapper.get('input[aria-label="Entry label"]').setValue('treasury')
    await wrapper.get('input[aria-label="Entry address"]').setValue('0x52908400098527886E0F7030069857D2E4169Ee7')
    await wrapper.get('input[aria-label="Entry chain id"]').setValue('1')
    expect(button('Add to the address book')!.disabled).toBe(true)
    await wrapper.get('input[aria-label="Passphrase to add the entry"]').setValue('pw')
    button('Add to the address book')!.click()
    await flush()
    expect(wrapper.get('[data-testid="error-code"]').text()).toBe('InvalidAddressChecksum')
    expect(desk.callsTo('addresses.add')).toEqual([
      { label: 'treasury', address: '0x52908400098527886E0F7030069857D2E4169Ee7', chainId: '1', passphrase: 'pw' },
    ])

    desk.handle('addresses.remove', (a) => {
      view = { ...view, addresses: view.addresses.filter((e) => e.label !== a.label) }
      return { removed: a.label }
    })
    button('Remove cold from the address book')!.click()
    await flush()
    await wrapper.get('input[aria-label="Passphrase to remove cold"]').setValue('pw')
    button('Remove cold now')!.click()
    await flush()
    expect(desk.callsTo('addresses.remove')).toEqual([{ label: 'cold', passphrase: 'pw' }])
    expect(wrapper.find('[data-testid="usable-cold"]').exists()).toBe(false)
    wrapper.unmount()
  })
})

describe('halt', () => {
  const result: HaltResult = {
    network: 'sandbox',
    halted: { since: NOW },
    accounts: [
      { account: CASH, label: 'cash-1', verifiedZero: true, cancelledMarkets: [1, 2], remaining: [], error: null },
      {
        account: CREDIT,
        label: 'credit-1',
        verifiedZero: false,
        cancelledMarkets: [],
        remaining: [{ market: 2, oid: '77' }],
        error: { code: 'WatchOnlyAccount', message: 'no key' },
      },
    ],
  }

  it('halts after a confirmation, shows each account (verified zero or what remains), a banner, then resumes with the passphrase', async () => {
    let halted: { since: number } | null = null
    desk.handle('policy.show', () => policyView({ halted }))
    desk.handle('policy.halt', () => {
      halted = { since: NOW }
      return result
    })
    desk.handle('policy.resume', (a) => {
      if (a.passphrase !== 'right') throw Object.assign(new Error('x'))
      halted = null
      return policyView()
    })
    setActivePinia(createPinia())
    const shell = mount(
      { components: { HaltButton, HaltPanel }, template: '<div><halt-button /><main><halt-panel /></main></div>' },
      { attachTo: document.body },
    )
    await flush()
    expect(button('Halt trading')).not.toBeNull()
    button('Halt trading')!.click()
    await flush()
    expect(desk.callsTo('policy.halt')).toEqual([]) // asks first
    expect(await seriousA11yViolations()).toEqual([])
    const confirmHalt = [...document.querySelectorAll('button')].find((b) => b.textContent?.includes('Halt and cancel every open order'))
    confirmHalt!.click()
    await flush()
    expect(desk.callsTo('policy.halt')).toHaveLength(1)
    expect(shell.get(`[data-testid="halt-${CASH}"]`).text()).toContain('verified zero')
    expect(shell.get(`[data-testid="halt-${CREDIT}"]`).text()).toContain('1 remain: oid 77 (market 2)')
    expect(shell.text()).toContain('WatchOnlyAccount')
    expect(shell.text()).toMatch(/Trading halted since/)

    // emergency revocation beside it
    desk.handle('agents.revokeAll', () => [{ slot: 0, agent: null, epoch: null, keyInVault: false, approvedAt: null }])
    button('Revoke all agents of cash-1')!.click()
    await flush()
    expect(desk.callsTo('agents.revokeAll')).toEqual([{ owner: CASH }])
    expect(shell.text()).toContain('no agent left')

    // closing the panel leaves the banner
    button('Trading halted: resume or review')!.click()
    await flush()
    expect(shell.get('[data-testid="halt-banner"]').text()).toContain('every write is refused')
    button('Resume or review the halt')!.click()
    await flush()
    expect(button('Resume trading')!.disabled).toBe(true)
    await shell.get('input[aria-label="Passphrase to resume trading"]').setValue('right')
    button('Resume trading')!.click()
    await flush()
    expect(desk.callsTo('policy.resume')).toEqual([{ passphrase: 'right' }])
    expect(shell.find('[data-testid="halt-banner"]').exists()).toBe(false)
    expect(button('Halt trading')).not.toBeNull()
    shell.unmount()
  })
})

describe('refusal figures', () => {
  it('reads the limit, what is used and when room frees up from the details', () => {
    const at = Date.UTC(2026, 10, 25, 10, 0, 0)
    const f = refusalFacts(
      new DeskCallError({
        code: 'LimitExceeded',
        message: 'x',
        details: { code: 'LimitExceeded', rule: 'transfer-daily-limit-usd', limit: '20', used: '12.5', amount: '10', freesAt: at },
      }),
    )!
    expect(f.facts.map((x) => x.label)).toEqual(['Rule', 'Limit', 'Already used (last 24 h)', 'This amount', 'Room frees up at'])
    expect(f.facts.map((x) => x.value).slice(1, 4)).toEqual(['$20.00', '$12.50', '$10.00'])
    expect(f.facts[4]!.value).toMatch(/^2026-11-2\d \d\d:00:00/)
    const never = refusalFacts(
      new DeskCallError({
        code: 'LimitExceeded',
        message: 'x',
        details: { rule: 'withdraw-asset-daily-limit:1', limit: '3000', used: '0', amount: '4', freesAt: null },
      }),
      (id) => (id === 1 ? 'USDC' : undefined),
    )!
    expect(never.facts.at(-1)!.value).toContain('it alone is over the limit')
    // A per-asset limit in that asset's units, with its symbol (never "units").
    expect(never.facts[1]!.value).toBe('3,000 USDC')
    expect(
      refusalFacts(
        new DeskCallError({
          code: 'LimitExceeded',
          message: 'x',
          details: { rule: 'withdraw-asset-limit:9', limit: '3', used: '0', amount: '4' },
        }),
      )!.facts[1]!.value,
    ).toBe('3 (asset 9)')
    expect(refusalFacts(new DeskCallError({ code: 'InsufficientSpotBalance', message: 'x' }))).toBeNull()
    expect(
      refusalFacts(
        new DeskCallError({
          code: 'PriceOutsideBand',
          message: 'x',
          details: { band: '5', reference: '3450.5', confirmText: 'BUY MARKET 2 AT 34505' },
        }),
      )!.confirmText,
    ).toBe('BUY MARKET 2 AT 34505')
  })

  it('a preview predicting a policy refusal or a short balance blocks signing', () => {
    expect(blockingWarning(['Refused by policy (DestinationNotAllowed): not in the address book'])).toMatch(/^Refused by policy/)
    expect(blockingWarning(['cash-1 has only 1 USDC available: the service will refuse with InsufficientSpotBalance.'])).toMatch(
      /InsufficientSpotBalance/,
    )
    expect(blockingWarning([])).toBeNull()
  })
})
