// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EarnOverviewView, EarnWithdrawalView } from '../../../../main/contract/types'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { ASSETS, CASH, account } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import { seriousA11yViolations } from '../../testing/axe'
import EarnView from './EarnView.vue'

let desk: FakeDesk
const NOW = Date.now()

function withdrawal(over: Partial<EarnWithdrawalView>): EarnWithdrawalView {
  return {
    operationId: `withdraw:${CASH}:1`,
    assetId: 1,
    symbol: 'USDC',
    type: 'scheduled',
    gross: '10',
    fee: '0',
    net: '10',
    status: 'queued',
    createdAt: NOW - 1000,
    claimableAt: NOW + 60_000,
    canClaim: false,
    canCancel: true,
    needsAttention: false,
    failureCode: null,
    ...over,
  }
}

function overview(over: Partial<EarnOverviewView> = {}): EarnOverviewView {
  return {
    address: CASH,
    paused: false,
    nextUserNonce: '5',
    fetchedAt: NOW,
    assets: [
      {
        assetId: 1,
        symbol: 'USDC',
        earnBalance: '100.5',
        inQueueBalance: '10',
        withdrawLockedBalance: '0',
        lifetimeDeposit: '120',
        lifetimeYield: '0.5',
        lifetimeWithdraw: '10',
        activeWithdrawOperationId: null,
        scheduledEnabled: true,
        instantEnabled: true,
        instantFeeBps: 50,
        pendingSeconds: 60,
        minWithdraw: '0',
        maxWithdraw: '0',
        projectedApy: '0.042',
      },
    ],
    withdrawals: [
      withdrawal({ operationId: `withdraw:${CASH}:1` }),
      withdrawal({ operationId: `withdraw:${CASH}:2`, claimableAt: NOW - 1000, canClaim: true, canCancel: false }),
      withdrawal({
        operationId: `withdraw:${CASH}:3`,
        status: 'manual_review',
        needsAttention: true,
        failureCode: 'PayoutFailed',
        canCancel: false,
        claimableAt: null,
      }),
    ],
    ...over,
  }
}

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [account(CASH, 'balance', 'cash-1')])
  desk.handle('markets.list', () => ({ markets: [], assets: ASSETS }))
  desk.handle('earn.deposits', () => ({ items: [], nextBeforeId: null }))
  desk.handle('earn.yield', () => ({ items: [], nextBeforeId: null }))
  desk.handle('earn.withdrawals', () => ({ items: [], nextBeforeId: null }))
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})

const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)

describe('EarnView', () => {
  it('enables claim and cancel only where the service allows, and flags manual review', async () => {
    desk.handle('earn.overview', () => overview())
    const { wrapper } = await mountScreen(EarnView, { props: { address: CASH }, path: `/earn/${CASH}` })
    await flush()
    expect(button(`Claim withdraw:${CASH}:1`)?.disabled).toBe(true)
    expect(button(`Cancel withdraw:${CASH}:1`)?.disabled).toBe(false)
    expect(button(`Claim withdraw:${CASH}:2`)?.disabled).toBe(false)
    expect(button(`Cancel withdraw:${CASH}:2`)?.disabled).toBe(true)
    expect(button(`Claim withdraw:${CASH}:3`)?.disabled).toBe(true)
    expect(button(`Cancel withdraw:${CASH}:3`)?.disabled).toBe(true)
    expect(wrapper.text()).toMatch(/needs manual review \(PayoutFailed\)/)
    expect(wrapper.text()).toMatch(/in 5\ds/)
    wrapper.unmount()
  })

  it('while paused blocks claim and create but keeps cancel', async () => {
    desk.handle('earn.overview', () => overview({ paused: true }))
    const { wrapper } = await mountScreen(EarnView, { props: { address: CASH } })
    await flush()
    expect(wrapper.text()).toContain('Withdrawals paused')
    expect(button(`Claim withdraw:${CASH}:2`)?.disabled).toBe(true)
    expect(button(`Cancel withdraw:${CASH}:1`)?.disabled).toBe(false)
    expect(button('Create withdrawal')?.disabled).toBe(true)
    wrapper.unmount()
  })

  it('shows the instant fee and the net before creating, and sends the exact gross', async () => {
    desk.handle('earn.overview', () => overview({ withdrawals: [] }))
    desk.handle('earn.create', (a) =>
      withdrawal({
        operationId: `withdraw:${CASH}:9`,
        type: 'instant',
        gross: a.amount,
        fee: '0.5',
        net: '99.5',
        status: 'created',
        canCancel: false,
        claimableAt: null,
      }),
    )
    const { wrapper } = await mountScreen(EarnView, { props: { address: CASH } })
    await flush()
    await wrapper.get('select[aria-label="Withdrawal asset"]').setValue('1')
    await wrapper.get('select[aria-label="Withdrawal type"]').setValue('instant')
    await wrapper.get('input[aria-label="Gross amount"]').setValue('100')
    await flush()
    const feeBox = wrapper.get('[aria-label="Fee and net"]').text()
    expect(feeBox).toContain('Fee: 0.5 USDC')
    expect(feeBox).toContain('Net: 99.5 USDC')
    expect(button('Create withdrawal')?.disabled).toBe(false)
    button('Create withdrawal')!.click()
    await flush()
    expect(desk.callsTo('earn.create')).toEqual([{ account: CASH, assetId: 1, amount: '100', type: 'instant' }])
    expect(wrapper.text()).toContain('gross 100 USDC, fee 0.5 USDC, net 99.5 USDC')
    expect(wrapper.text()).toContain('instant on (fee 0.5%)')
    wrapper.unmount()
  })

  it('rejects a gross amount finer than the asset precision before anything is signed', async () => {
    desk.handle('earn.overview', () => overview({ withdrawals: [] }))
    const { wrapper } = await mountScreen(EarnView, { props: { address: CASH } })
    await flush()
    await wrapper.get('select[aria-label="Withdrawal asset"]').setValue('1')
    await wrapper.get('input[aria-label="Gross amount"]').setValue('1.0000001')
    await flush()
    expect(wrapper.text()).toMatch(/at most 6 decimals/)
    expect(button('Create withdrawal')?.disabled).toBe(true)
    wrapper.unmount()
  })

  it('shows an earn refusal with its code and what to do', async () => {
    desk.handle('earn.overview', () => overview())
    desk.fail('earn.cancel', { code: 'EarnInvalid', message: 'withdrawal is not cancelable' })
    const { wrapper } = await mountScreen(EarnView, { props: { address: CASH } })
    await flush()
    button(`Cancel withdraw:${CASH}:1`)!.click()
    await flush()
    expect(wrapper.get('[data-testid="error-code"]').text()).toBe('EarnInvalid')
    expect(wrapper.get('[data-testid="error-advice"]').text()).toMatch(/Claim it instead/)
    wrapper.unmount()
  })
})

describe('EarnView numbers (issue 31)', () => {
  it('shows pool amounts in the asset display precision with the symbol (exact on hover), and no nonce column', async () => {
    const base = overview()
    desk.handle('earn.overview', () => ({
      ...base,
      assets: [{ ...base.assets[0]!, earnBalance: '49000.08483638', lifetimeYield: '0.00605975' }],
    }))
    const { wrapper } = await mountScreen(EarnView, { props: { address: CASH } })
    await flush()
    const row = wrapper.get('table[aria-label="Earn balances"] tbody tr')
    const cells = row.findAll('td.num').map((c) => c.text())
    expect(cells[0]).toBe('49,000.08 USDC')
    expect(cells[4]).toBe('<0.01 USDC')
    expect(row.get('td.num .amount').attributes('title')).toBe('exactly 49,000.08483638 USDC')
    expect(wrapper.text()).not.toMatch(/Nonce|· #/)
    expect(wrapper.findAll('select[aria-label="Withdrawal asset"] option').map((o) => o.text())).toContain('USDC')
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })
})

describe('EarnView accessibility', () => {
  it('has no critical or serious violations', async () => {
    desk.handle('earn.overview', () => overview())
    const { wrapper } = await mountScreen(EarnView, { props: { address: CASH } })
    await flush()
    expect(wrapper.text()).toContain('needs manual review')
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it('the queue sorts by exact gross and by claimable time, reversing on a second click; the empty queue row is not sorted; axe is clean', async () => {
    desk.handle('earn.overview', () =>
      overview({
        withdrawals: [
          withdrawal({ operationId: `withdraw:${CASH}:1`, gross: '1234.5', claimableAt: NOW + 120_000 }),
          withdrawal({ operationId: `withdraw:${CASH}:2`, gross: '250000', claimableAt: NOW + 30_000 }),
          withdrawal({ operationId: `withdraw:${CASH}:3`, gross: '99', claimableAt: NOW + 60_000 }),
        ],
      }),
    )
    const { wrapper } = await mountScreen(EarnView, { props: { address: CASH } })
    await flush()
    const table = 'table[aria-label="Withdrawal queue"]'
    // the queue names a withdrawal by its created time (zone and age beside it), never its operation id nor
    // a bare nonce ("· #0", issue 31); the id is in the cell's title
    const ops = () => wrapper.findAll(`${table} tbody tr td:first-child`).map((c) => c.attributes('title')!.split(':').pop())
    expect(wrapper.get(`${table} tbody`).text()).not.toContain('withdraw:')
    expect(wrapper.get(`${table} tbody`).text()).not.toContain('#')
    expect(wrapper.get(`${table} tbody tr td:first-child`).text()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+ \(.+\)$/)
    expect(ops()).toEqual(['1', '2', '3'])
    const gross = wrapper.get(`${table} thead th:nth-child(4) button`)
    expect(gross.text()).toBe('Gross')
    await gross.trigger('click')
    expect(ops()).toEqual(['3', '1', '2'])
    expect(wrapper.get(`${table} thead th:nth-child(4)`).attributes('aria-sort')).toBe('ascending')
    await gross.trigger('click')
    expect(ops()).toEqual(['2', '1', '3'])
    expect(wrapper.get(`${table} thead th:nth-child(4)`).attributes('aria-sort')).toBe('descending')
    expect(wrapper.get(`${table} tbody tr:first-child td:nth-child(4)`).text()).toContain('250,000')
    await wrapper.get(`${table} thead th:nth-child(8) button`).trigger('click')
    expect(ops()).toEqual(['2', '3', '1'])
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()

    desk.handle('earn.overview', () => overview({ withdrawals: [] }))
    const empty = await mountScreen(EarnView, { props: { address: CASH } })
    await flush()
    await empty.wrapper.get(`${table} thead th:nth-child(4) button`).trigger('click')
    expect(empty.wrapper.findAll(`${table} tbody tr`).map((r) => r.text())).toEqual(['no active withdrawals'])
    empty.wrapper.unmount()
  })
})
