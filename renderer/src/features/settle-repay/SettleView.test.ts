// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PreviewView } from '../../../../main/contract/types'
import { wireEvents } from '../../app/store'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { ASSETS, CASH, CREDIT, account, submission } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import { seriousA11yViolations } from '../../testing/axe'
import { mount } from '@vue/test-utils'
import { ConfirmDialog } from '../confirm'
import SettleView from './SettleView.vue'

let desk: FakeDesk
let unwire: (() => void) | null = null

const preview: PreviewView = {
  title: 'Settle 1.5 USDC',
  summary: ['network sandbox, chain id 424242', 'signer credit-1', 'settle 1.5 USDC (1500000 atoms) to cash-1'],
  action: { type: 'settle', asset_id: '1', amount: '1500000', cash_account: CASH },
  effects: [
    { account: CREDIT, label: 'credit position', assetSymbol: 'USDC', before: '10', after: '8.5' },
    { account: CASH, label: 'available', assetSymbol: 'USDC', before: '2', after: '3.5' },
  ],
  warnings: [],
}

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [account(CREDIT, 'credit', 'credit-1'), account(CASH, 'balance', 'cash-1')])
  desk.handle('markets.list', () => ({ markets: [], assets: ASSETS }))
  desk.handle('settle.preview', () => preview)
  document.body.innerHTML = ''
})
afterEach(() => {
  unwire?.()
  document.body.innerHTML = ''
})

async function fill(amount: string) {
  const m = await mountScreen(SettleView, { path: '/settle' })
  unwire = wireEvents()
  await flush()
  const w = m.wrapper
  await w.get('select[aria-label="Credit account"]').setValue(CREDIT)
  await w.get('select[aria-label="Cash account"]').setValue(CASH)
  await w.get('select[aria-label="Asset"]').setValue('1')
  await w.get('input[aria-label="Amount"]').setValue(amount)
  await flush()
  return w
}
const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)

describe('SettleView', () => {
  it('refuses an amount finer than the asset precision as it is typed; nothing is previewed', async () => {
    const w = await fill('1.0000001')
    expect(w.text()).toMatch(/at most 6 decimals/)
    expect(button('Preview')?.disabled).toBe(true)
    expect(desk.callsTo('settle.preview')).toEqual([])
    w.unmount()
  })

  it('previews exactly what will be signed and both predicted balances, then follows the write to reconciled', async () => {
    desk.handle('settle.submit', () => ({ submission: submission({ state: 'sent' }), leaves: [] }))
    desk.handle('account.detail', (a) => ({
      account: account(a.address as `0x${string}`, a.address === CREDIT ? 'credit' : 'balance', 'x'),
      balances: [],
      credit: null,
      openOrders: [],
      fills: [],
      fetchedAt: 1,
    }))
    const w = await fill('1.5')
    button('Preview')!.click()
    await flush()
    expect(desk.callsTo('settle.preview')).toEqual([{ creditAccount: CREDIT, cashAccount: CASH, assetId: 1, amount: '1.5' }])
    const p = w.get('[aria-label="Preview of what will be signed"]').text()
    expect(p).toContain('settle 1.5 USDC (1500000 atoms) to cash-1')
    expect(p).toMatch(/credit-1 \(0x1111…1111\)\s*credit position\s*USDC\s*10 USDC\s*8\.5 USDC/)
    expect(p).toMatch(/cash-1 \(0x2222…2222\)\s*available\s*USDC\s*2 USDC\s*3\.5 USDC/)

    button('Sign and submit settle')!.click()
    await flush()
    expect(desk.callsTo('settle.submit')).toHaveLength(1)
    // The outcome is main's (journal `outcome`), never judged from the state in the renderer.
    expect(w.get('[aria-label="Submission status"]').text()).toContain('in progress: waiting for the exchange')

    desk.emit('journal.changed', submission({ state: 'unknown', code: 'NodeUnreachable', outcome: 'pending', updatedAt: 2000 }))
    await flush()
    const status = w.get('[aria-label="Submission status"]').text()
    expect(status).toContain('reconciling by cloid — do not resubmit')
    expect(status).not.toMatch(/executed|FAILED/)

    desk.emit(
      'journal.changed',
      submission({
        state: 'reconciled',
        code: null,
        finalStatus: 'success',
        outcome: 'success',
        txHash: '0xabc',
        traceId: 'trace-1',
        updatedAt: 3000,
      }),
    )
    await flush()
    expect(w.get('[aria-label="Submission status"]').text()).toContain('executed')
    expect(w.get('[aria-label="Submission status"]').text()).toContain('trace-1')
    expect(w.get('[aria-label="Submission status"]').text()).toContain('0xabc')
    expect(desk.callsTo('account.detail')).toHaveLength(2)
    // the cash account's final balance arrives later by push: "Balances now" follows it
    desk.emit('state.account', {
      account: account(CASH, 'balance', 'x'),
      balances: [{ assetId: 1, symbol: 'USDC', available: '3.5', locked: '0', total: '3.5', usdValue: '3.5' }],
      credit: null,
      openOrders: [],
      fills: [],
      fetchedAt: 5,
    })
    await flush()
    expect(w.get('[aria-label="Balances now"]').text()).toContain('3.5')
    w.unmount()
  })

  it('when the outcome is unknown, follows the journaled submission until it is reconciled', async () => {
    const cloid = '0x0123456789abcdef0123456789abcdef'
    desk.fail('settle.submit', {
      code: 'TradeOutcomeUnknown',
      message: 'the outcome of the settle is not known yet (NodeUnreachable)',
      details: { cloid, journalId: 1 },
    })
    desk.handle('journal.get', () => submission({ state: 'unknown', code: 'NodeUnreachable', updatedAt: 2000 }))
    desk.handle('account.detail', (a) => ({
      account: account(a.address as `0x${string}`, 'balance', 'x'),
      balances: [],
      credit: null,
      openOrders: [],
      fills: [],
      fetchedAt: 1,
    }))
    const w = await fill('1.5')
    button('Preview')!.click()
    await flush()
    button('Sign and submit settle')!.click()
    await flush()
    expect(w.get('[data-testid="error-code"]').text()).toBe('TradeOutcomeUnknown')
    expect(w.get('[data-testid="error-advice"]').text()).toMatch(/do not resubmit/)
    expect(desk.callsTo('journal.get')).toEqual([{ cloid }])
    expect(w.get('[aria-label="Submission status"]').text()).toContain('reconciling by cloid — do not resubmit')
    desk.emit('journal.changed', submission({ state: 'reconciled', finalStatus: 'success', outcome: 'success', updatedAt: 3000 }))
    await flush()
    expect(w.get('[aria-label="Submission status"]').text()).toContain('executed')
    expect(desk.callsTo('settle.submit')).toHaveLength(1)
    w.unmount()
  })

  it('shows a rejection with the service code and advice', async () => {
    desk.fail('settle.submit', {
      code: 'TradeRejected',
      message: 'the service rejected the settle: InvalidSettle',
      details: { rejectCode: 'InvalidSettle' },
    })
    const w = await fill('1.5')
    button('Preview')!.click()
    await flush()
    button('Sign and submit settle')!.click()
    await flush()
    expect(w.get('[data-testid="error-code"]').text()).toBe('InvalidSettle')
    expect(w.get('[data-testid="error-advice"]').text()).toMatch(/settleable long/)
    w.unmount()
  })

  it('drops the preview when the amount changes, so a stale preview is never signed', async () => {
    const w = await fill('1.5')
    button('Preview')!.click()
    await flush()
    expect(button('Sign and submit settle')).not.toBeNull()
    await w.get('input[aria-label="Amount"]').setValue('2')
    await flush()
    expect(button('Sign and submit settle')).toBeNull()
    w.unmount()
  })
})

describe('SettleView accessibility', () => {
  it('has no critical or serious violations with the preview and the confirmation dialog open', async () => {
    const w = await fill('1.5')
    button('Preview')!.click()
    await flush()
    expect(document.querySelector('table[aria-label="Predicted balances"]')).not.toBeNull()
    const dialog = mount(ConfirmDialog, { attachTo: document.body })
    desk.emit('confirm.request', {
      id: 'c1',
      title: 'Settle 1.5 USDC',
      summary: ['settle 1.5 USDC from credit-1 to cash-1'],
      needsPassphrase: true,
      expiresAt: Date.now() + 60_000,
      origin: 'app',
    })
    await flush()
    expect(document.querySelector('[role="dialog"]')).not.toBeNull()
    expect(await seriousA11yViolations()).toEqual([])
    dialog.unmount()
    w.unmount()
  })
})
