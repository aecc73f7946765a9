// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { OverviewRow } from '../../../../main/contract/types'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { CASH, CREDIT, account } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import OverviewViewScreen from './OverviewView.vue'

let desk: FakeDesk

function row(addr: `0x${string}`, label: string): OverviewRow {
  return {
    account: account(addr, addr === CREDIT ? 'credit' : 'balance', label),
    totalUsd: '1000',
    available: [],
    credit: null,
    agentsInUse: 0,
    pendingJournal: 0,
    fetchedAt: Date.now(),
    stale: false,
  }
}

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [])
  desk.handle('portfolio.overview', () => ({
    rows: [row(CASH, 'cash-1'), row(CREDIT, 'credit-1')],
    totals: [],
    totalUsd: '2000',
    asOf: Date.now(),
  }))
  desk.handle('screen.watch', (a) => ({ leaseId: a.leaseId ?? 'lease-3', ttlMs: 60_000, renewEveryMs: 20_000 }))
  desk.handle('screen.release', () => ({ released: true }))
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})

describe('OverviewView screen lease', () => {
  it('leases the rows its filter shows, follows the filter, and gives the lease back on unmount', async () => {
    const { wrapper } = await mountScreen(OverviewViewScreen, { path: '/overview', props: { virtual: false } })
    await flush()
    const last = () => desk.callsTo('screen.watch').at(-1) as { target: { kind: string; addresses: string[] }; leaseId?: string }
    expect(last().target).toEqual({ kind: 'overview', addresses: [CASH, CREDIT].sort() })
    await wrapper.get('input[aria-label="Filter accounts"]').setValue('credit')
    await flush()
    expect(last()).toEqual({ target: { kind: 'overview', addresses: [CREDIT] }, leaseId: 'lease-3' })
    wrapper.unmount()
    await flush()
    expect(desk.callsTo('screen.release')).toEqual([{ leaseId: 'lease-3' }])
  })
})
