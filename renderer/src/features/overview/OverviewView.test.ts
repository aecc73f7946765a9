// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { OverviewRow, OverviewView } from '../../../../main/contract/types'
import { wireEvents } from '../../app/store'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { CASH, CREDIT, account } from '../../testing/fixtures'
import { seriousA11yViolations } from '../../testing/axe'
import { mountScreen } from '../../testing/mount'
import { useSessionStore } from '../session'
import OverviewViewScreen from './OverviewView.vue'

let desk: FakeDesk
let unwire: (() => void) | null = null

function row(addr: `0x${string}`, label: string, over: Partial<OverviewRow> = {}): OverviewRow {
  return {
    account: account(addr, addr === CREDIT ? 'credit' : 'balance', label),
    totalUsd: '1000',
    available: [{ assetId: 1, symbol: 'USDC', available: '1000', locked: '0', total: '1000', usdValue: '1000' }],
    credit: null,
    agentsInUse: 1,
    pendingJournal: 0,
    fetchedAt: Date.now(),
    stale: false,
    ...over,
  }
}
function view(rows: OverviewRow[], over: Partial<OverviewView> = {}): OverviewView {
  return { rows, totals: [{ assetId: 1, symbol: 'USDC', total: '1000', usdValue: '1000' }], totalUsd: '1000', asOf: Date.now(), ...over }
}

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [])
  document.body.innerHTML = ''
})
afterEach(() => {
  unwire?.()
  document.body.innerHTML = ''
})

describe('OverviewView', () => {
  it('strict mode: says how fresh the least fresh account is (name, short address, age) and which rows are live or refreshed in turn', async () => {
    desk.handle('portfolio.overview', () =>
      view([
        row(CASH, 'cash-1', { source: 'live', fetchedAt: Date.now() - 5 * 60_000 }),
        row(CREDIT, 'credit-1', { source: 'info', fetchedAt: Date.now() - 42_000 }),
      ]),
    )
    const { wrapper } = await mountScreen(OverviewViewScreen, { path: '/overview', props: { virtual: false } })
    const session = useSessionStore()
    session.stream = {
      connected: true,
      connections: 1,
      connectionLimit: 1,
      neededConnections: 2,
      subscriptions: 10,
      lastMessageAt: Date.now(),
      reconnects: 0,
      droppedFrames: 0,
      detail: '',
      strict: true,
      liveAccounts: 1,
      leastFreshUser: CREDIT.toUpperCase().replace('0X', '0x'),
      leastFreshAt: Date.now() - 42_000,
      rotations: 2,
    }
    await flush()
    expect(wrapper.get('[data-testid="least-fresh"]').text()).toMatch(
      /^Least fresh: credit-1 \(0x1111…1111\), [0-9]+s ago · 1 account live, 1 refreshed in turn$/,
    )
    const cells = wrapper.findAll('[data-testid="overview-table"] tbody tr').map((tr) => tr.text())
    // a streaming row reads 'live' whatever the time of its last change; the polled one reads its age and 'in turn'
    expect(cells.find((t) => t.includes('cash-1'))).toMatch(/live$/)
    expect(cells.find((t) => t.includes('credit-1'))).toMatch(/[0-9]+s ago · in turn$/)
    expect(await seriousA11yViolations()).toEqual([])
    // the stream drops: nothing says live any more, the age as read shows instead
    session.stream = { ...session.stream, connected: false }
    await flush()
    const after = wrapper.findAll('[data-testid="overview-table"] tbody tr').map((tr) => tr.text())
    // (its age is about 5 minutes: the view's clock may lag the row's time by a tick, so 4m 59s too)
    expect(after.find((t) => t.includes('cash-1'))).toMatch(/(5m [0-9]+s|4m 5[0-9]s) ago$/)
    expect(wrapper.get('[data-testid="overview-table"]').text()).not.toMatch(/\blive\b/)
    wrapper.unmount()
  })

  it('without strict limits the least fresh line names the account and says nothing about turns', async () => {
    desk.handle('portfolio.overview', () => view([row(CASH, 'cash-1', { source: 'live' })]))
    const { wrapper } = await mountScreen(OverviewViewScreen, { path: '/overview', props: { virtual: false } })
    useSessionStore().stream = {
      connected: true,
      connections: 2,
      connectionLimit: 1,
      neededConnections: 2,
      subscriptions: 12,
      lastMessageAt: Date.now(),
      reconnects: 0,
      droppedFrames: 0,
      detail: '',
      strict: false,
      liveAccounts: 1,
      leastFreshUser: CASH,
      leastFreshAt: null,
      rotations: 0,
    }
    await flush()
    expect(wrapper.get('[data-testid="least-fresh"]').text()).toBe('Least fresh: cash-1 (0x2222…2222), not read yet')
    wrapper.unmount()
  })

  it('shows unknown and stale values as such, never as zero', async () => {
    desk.handle('portfolio.overview', () =>
      view(
        [
          row(CASH, 'cash-1', { totalUsd: null, stale: true, fetchedAt: Date.now() - 90_000 }),
          row(CREDIT, 'credit-1', { totalUsd: null, available: [], fetchedAt: null }),
        ],
        {
          totals: [{ assetId: 2, symbol: 'BTC', total: '1.5', usdValue: null }],
          totalUsd: null,
        },
      ),
    )
    const { wrapper } = await mountScreen(OverviewViewScreen, { path: '/overview', props: { virtual: false } })
    await flush()
    const totals = wrapper.get('[aria-label="Totals per asset"]').text()
    expect(totals).toContain('1.5')
    expect(totals).toContain('unknown')
    expect(wrapper.get('[data-testid="overview-total-usd"]').text()).toBe('— unknown')
    expect(totals).not.toContain('$0')
    const table = wrapper.get('[data-testid="overview-table"]').text()
    expect(table).toContain('cash-1')
    expect(table).toContain('(stale)')
    expect(table).toContain('never')
    expect(table).not.toContain('$0')
    wrapper.unmount()
  })

  it('a credit cell without a value and a row that could not be read say why', async () => {
    desk.handle('portfolio.overview', () =>
      view([
        row(CREDIT, 'credit-1', {
          credit: { creditUsd: '5000', availableUsd: null, warning: 'unknown' },
          creditReason: 'mark for BTC is 75 s old (over 60 s)',
        }),
        row(CASH, 'cash-1', {
          totalUsd: null,
          available: [],
          fetchedAt: null,
          readError: 'could not be read: /info is rate limited',
          totalUsdReason: 'could not be read: /info is rate limited',
        }),
      ]),
    )
    const { wrapper } = await mountScreen(OverviewViewScreen, { path: '/overview', props: { virtual: false } })
    await flush()
    const table = wrapper.get('[data-testid="overview-table"]').text()
    expect(table).toContain('mark for BTC is 75 s old (over 60 s)')
    expect(table).toContain('unknown: could not be read: /info is rate limited')
    wrapper.unmount()
  })

  it('says why a total is missing and how old each total is; a cached start is labelled as such', async () => {
    const markAt = Date.now() - 40_000
    desk.handle('portfolio.overview', () =>
      view([row(CASH, 'cash-1', { totalUsd: null, totalUsdReason: 'mark for BTC stale since 12:03:04 UTC' })], {
        totals: [{ assetId: 2, symbol: 'BTC', total: '1.5', usdValue: null }],
        totalsAge: { '2': { asOf: markAt, reason: 'mark for BTC stale since 12:03:04 UTC' } },
        totalUsd: null,
        totalUsdAge: { asOf: markAt, reason: 'mark for BTC stale since 12:03:04 UTC' },
        source: 'cache',
      }),
    )
    const { wrapper } = await mountScreen(OverviewViewScreen, { path: '/overview', props: { virtual: false } })
    await flush()
    expect(wrapper.get('[data-testid="overview-total-usd"]').text()).toBe('— mark for BTC stale since 12:03:04 UTC')
    expect(wrapper.get('[data-testid="overview-total-age"]').text()).toMatch(/^(3\d|4\d)s ago \(stale\)$/)
    expect(wrapper.get('[aria-label="Totals per asset"]').text()).toContain('mark for BTC stale since 12:03:04 UTC')
    expect(wrapper.get('[data-testid="overview-table"]').text()).toContain('mark for BTC stale since')
    expect(wrapper.get('[aria-label="Overview freshness"]').text()).toContain('last known from the previous run')
    wrapper.unmount()
  })

  it('applies pushed overview snapshots live and ignores an older one arriving late', async () => {
    desk.handle('portfolio.overview', () => view([row(CASH, 'cash-1')], { asOf: 1000 }))
    const { wrapper } = await mountScreen(OverviewViewScreen, { path: '/overview', props: { virtual: false } })
    unwire = wireEvents()
    await flush()
    expect(wrapper.get('[data-testid="overview-total-usd"]').text()).toBe('$1,000.00')
    desk.emit('state.overview', view([row(CASH, 'cash-1', { totalUsd: '1250.5' })], { totalUsd: '1250.5', asOf: 2000 }))
    await flush()
    expect(wrapper.get('[data-testid="overview-total-usd"]').text()).toBe('$1,250.50')
    desk.emit('state.overview', view([row(CASH, 'cash-1')], { totalUsd: '999', asOf: 1500 }))
    await flush()
    expect(wrapper.get('[data-testid="overview-total-usd"]').text()).toBe('$1,250.50')
    wrapper.unmount()
  })

  it('filters accounts by label as the operator types', async () => {
    desk.handle('portfolio.overview', () => view([row(CASH, 'cash-1'), row(CREDIT, 'credit-1')]))
    const { wrapper } = await mountScreen(OverviewViewScreen, { path: '/overview', props: { virtual: false } })
    await flush()
    await wrapper.get('input[aria-label="Filter accounts"]').setValue('credit')
    await flush()
    const table = wrapper.get('[data-testid="overview-table"]').text()
    expect(table).toContain('credit-1')
    expect(table).not.toContain('cash-1')
    wrapper.unmount()
  })

  it('sorts from a labelled select, unknown totals last in either direction', async () => {
    const OTHER = '0x3333333333333333333333333333333333333333' as const
    desk.handle('portfolio.overview', () =>
      view([
        row(CASH, 'small', { totalUsd: '12.5' }),
        row(CREDIT, 'unknown-total', { totalUsd: null }),
        row(OTHER, 'big', { totalUsd: '100000.01' }),
      ]),
    )
    const { wrapper } = await mountScreen(OverviewViewScreen, { path: '/overview', props: { virtual: false } })
    await flush()
    const order = () =>
      wrapper.findAll('[data-testid="overview-table"] tbody tr').map((r) => r.text().match(/small|unknown-total|big/)?.[0])
    expect(order()).toEqual(['small', 'unknown-total', 'big'])
    await wrapper.get('select[aria-label="Sort by"]').setValue('usd-desc')
    await flush()
    expect(order()).toEqual(['big', 'small', 'unknown-total'])
    await wrapper.get('select[aria-label="Sort by"]').setValue('usd-asc')
    await flush()
    expect(order()).toEqual(['small', 'big', 'unknown-total'])
    // No header is a sort control (those cannot be reached from the keyboard).
    expect(wrapper.findAll('[data-testid="overview-table"] th .n-data-table-sorter')).toHaveLength(0)
    wrapper.unmount()
  })
})

describe('OverviewView rows', () => {
  it('renders the first screenful with the page and every other row soon after, each row reachable by its link', async () => {
    const many = Array.from({ length: 120 }, (_, i) =>
      row(`0x${(i + 1).toString(16).padStart(40, '0')}` as `0x${string}`, `acct-${String(i + 1).padStart(3, '0')}`),
    )
    desk.handle('portfolio.overview', () => view(many))
    const { wrapper } = await mountScreen(OverviewViewScreen, { path: '/overview' })
    await new Promise((r) => setTimeout(r, 0))
    const shown = () => wrapper.findAll('[data-testid="overview-table"] tbody tr').length
    expect(shown()).toBeGreaterThanOrEqual(10)
    expect(shown()).toBeLessThan(120)
    // The others follow in screenfuls while the page is idle.
    await vi.waitFor(() => expect(shown()).toBe(120), { timeout: 3000 })
    expect(wrapper.findAll('a[aria-label^="Open account acct-"]')).toHaveLength(120)
    wrapper.unmount()
  })
})

describe('OverviewView accessibility', () => {
  it('has no critical or serious accessibility violations', async () => {
    desk.handle('portfolio.overview', () => view([row(CASH, 'cash-1'), row(CREDIT, 'credit-1', { totalUsd: null, stale: true })]))
    await mountScreen(OverviewViewScreen, { path: '/overview', props: { virtual: false } })
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
  })
})
