// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { PnlReport } from '../../../../main/contract/types'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { ASSETS, CASH, CREDIT, account } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import ReportsView from './ReportsView.vue'

let desk: FakeDesk
const clicks: string[] = []
const blobs: Blob[] = []
const origClick = HTMLAnchorElement.prototype.click

const pnl: PnlReport = {
  method: 'FIFO',
  methodNote: 'FIFO lots over the fills the service returns.',
  fromMs: 1_000,
  toMs: 2_000,
  gaps: [],
  rows: [
    {
      account: CASH,
      label: 'cash-1',
      marketId: '1',
      market: 'BTC/USDC',
      baseSymbol: 'BTC',
      quoteSymbol: 'USDC',
      fills: 3,
      fillsInRange: 2,
      closedQty: '0.08',
      realisedGross: '20',
      quoteFees: '0.514',
      realisedNet: '19486.1234',
      otherFees: [{ assetId: 3, symbol: 'BTC', amount: '0.00001' }],
      openQty: '0.02',
      openCost: '1280',
      unknownSideFills: 0,
      historyFromMs: 1_000,
      notes: [],
    },
  ],
}

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [account(CASH, 'balance', 'cash-1'), account(CREDIT, 'credit', 'credit-1')])
  desk.handle('markets.list', () => ({ markets: [], assets: ASSETS }))
  desk.handle('reports.currencies', () => [
    { code: 'USD', markUsd: null, markTimeMs: null },
    { code: 'BTC', markUsd: '64000.5', markTimeMs: Date.now() - 1000 },
  ])
  desk.handle('reports.fillsCsv', (a) => ({
    filename: `fills-${a.account ?? 'all'}.csv`,
    mime: 'text/csv',
    content: 'time_utc,fee\r\nx,0.1\r\ny,0.2\r\n',
  }))
  desk.handle('reports.transfersCsv', () => ({ filename: 'transfers.csv', mime: 'text/csv', content: 'time_utc,kind\r\nx,withdrawal\r\n' }))
  desk.handle('journal.export', () => ({ filename: 'journal.csv', mime: 'text/csv', content: 'cloid\r\n' }))
  desk.handle('reports.pnl', () => pnl)
  Object.assign(URL, {
    createObjectURL: vi.fn((b: Blob) => {
      blobs.push(b)
      return 'blob:fake'
    }),
    revokeObjectURL: vi.fn(),
  })
  clicks.length = 0
  blobs.length = 0
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    clicks.push(this.download)
  }
  document.body.innerHTML = ''
})
afterEach(() => {
  HTMLAnchorElement.prototype.click = origClick
  document.body.innerHTML = ''
})

const q = <T extends Element>(sel: string) => document.querySelector<T>(sel)!

describe('ReportsView', () => {
  it('exports fills for one account, a range in the operator zone and a chosen currency, as a download', async () => {
    const { wrapper } = await mountScreen(ReportsView, { path: '/reports' })
    await flush()
    // accounts by name and short address; currencies with their mark
    const accountOptions = [...q<HTMLSelectElement>('select[aria-label="Account"]').options].map((o) => o.text)
    expect(accountOptions).toEqual(['All accounts', 'cash-1 (0x2222…2222)', 'credit-1 (0x1111…1111)'])
    expect([...q<HTMLSelectElement>('select[aria-label="Value currency"]').options].map((o) => o.text)[1]).toMatch(
      /^BTC — mark \$64,000\.50, \d+s ago$/,
    )
    await wrapper.get('select[aria-label="Account"]').setValue(CASH)
    await wrapper.get('select[aria-label="Value currency"]').setValue('BTC')
    await wrapper.get('input[aria-label="From"]').setValue('2026-11-01T00:00')
    await wrapper.get('input[aria-label="To"]').setValue('2026-11-02T12:30')
    q<HTMLButtonElement>('button[aria-label="Export CSV"]').click()
    await flush()
    // the pickers are read in the operator's zone (local time), sent as epoch ms
    expect(desk.callsTo('reports.fillsCsv')).toEqual([
      { account: CASH, fromMs: new Date(2026, 10, 1, 0, 0).getTime(), toMs: new Date(2026, 10, 2, 12, 30).getTime(), currency: 'BTC' },
    ])
    expect(clicks).toEqual([`fills-${CASH}.csv`])
    expect(await blobs[0]!.text()).toContain('x,0.1')
    expect(wrapper.get('[role="status"].ok').text()).toBe(`Exported fills-${CASH}.csv (2 rows)`)
    wrapper.unmount()
  })

  it('transfers and withdrawals, and the journal (no currency), for all accounts', async () => {
    const { wrapper } = await mountScreen(ReportsView, { path: '/reports' })
    await flush()
    await wrapper.get('select[aria-label="Report"]').setValue('transfers')
    q<HTMLButtonElement>('button[aria-label="Export CSV"]').click()
    await flush()
    expect(desk.callsTo('reports.transfersCsv')).toEqual([expect.objectContaining({ currency: 'USD' })])
    expect(desk.callsTo('reports.transfersCsv')[0] as object).not.toHaveProperty('account')
    await wrapper.get('select[aria-label="Report"]').setValue('journal')
    expect(document.querySelector('select[aria-label="Value currency"]')).toBeNull()
    q<HTMLButtonElement>('button[aria-label="Export CSV"]').click()
    await flush()
    expect(desk.callsTo('journal.export')).toEqual([
      { format: 'csv', filter: expect.objectContaining({ sinceMs: expect.any(Number), untilMs: expect.any(Number) }) },
    ])
    expect(clicks).toEqual(['transfers.csv', 'journal.csv'])
    wrapper.unmount()
  })

  it('refuses an inverted range before asking main, and shows what main refused', async () => {
    desk.fail('reports.fillsCsv', { code: 'CurrencyUnavailable', message: 'Values cannot be stated in BTC now: its mark is stale.' })
    const { wrapper } = await mountScreen(ReportsView, { path: '/reports' })
    await flush()
    await wrapper.get('input[aria-label="From"]').setValue('2026-11-02T00:00')
    await wrapper.get('input[aria-label="To"]').setValue('2026-11-01T00:00')
    expect(q<HTMLButtonElement>('button[aria-label="Export CSV"]').disabled).toBe(true)
    expect(wrapper.text()).toContain('The end must be after the start.')
    await wrapper.get('input[aria-label="To"]').setValue('2026-11-03T00:00')
    q<HTMLButtonElement>('button[aria-label="Export CSV"]').click()
    await flush()
    expect(wrapper.get('[role="alert"]').text()).toMatch(/CurrencyUnavailable/)
    expect(clicks).toEqual([])
    wrapper.unmount()
  })

  it('shows realised PnL per account and market in units with the symbol; no critical or serious accessibility violations', async () => {
    const { wrapper } = await mountScreen(ReportsView, { path: '/reports' })
    await flush()
    q<HTMLButtonElement>('button[aria-label="Show realised PnL"]').click()
    await flush()
    const row = wrapper
      .get('table[aria-label="Realised PnL"] tbody tr')
      .findAll('td')
      .map((c) => c.text())
    expect(row).toEqual([
      'cash-1 (0x2222…2222)',
      'BTC/USDC',
      '2 of 3',
      '0.08 BTC',
      '20 USDC',
      '0.514 USDC',
      '19,486.1234 USDC',
      '0.00001 BTC',
      '0.02 BTC',
      '1,280 USDC',
      '—',
    ])
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })
})
