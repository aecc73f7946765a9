// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { CASH, account, submission } from '../../testing/fixtures'
import { seriousA11yViolations } from '../../testing/axe'
import { mountScreen } from '../../testing/mount'
import JournalView from './JournalView.vue'

let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [account(CASH, 'balance', 'cash-1')])
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})
const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)

describe('JournalView', () => {
  it('searches in main (oid, cloid, tx hash, account name), filters by type and by a from/to range, and lists unresolved writes', async () => {
    const all = [
      submission({
        id: '1',
        cloid: '0xaaaa0000000000000000000000000001',
        actionType: 'order',
        state: 'accepted',
        outcome: 'success',
        txHash: '0xfeedbeef',
        oids: ['4242'],
        createdAt: Date.parse('2026-11-20T10:00:00'),
      }),
      submission({
        id: '2',
        cloid: '0xbbbb0000000000000000000000000002',
        actionType: 'transfer',
        state: 'unresolved',
        outcome: 'unresolved',
        advice: 'Check the transfer on the exchange',
        account: CASH,
        createdAt: Date.parse('2026-11-22T10:00:00'),
      }),
    ]
    desk.handle('journal.actionTypes', () => ['order', 'transfer'])
    desk.handle('journal.query', (f) => {
      const q = (f as { q?: string }).q?.toLowerCase()
      return all.filter((s) => !q || [s.cloid, s.txHash ?? '', s.account, ...(s.oids ?? [])].some((x) => x.toLowerCase().includes(q)))
    })
    const { wrapper } = await mountScreen(JournalView, { path: '/journal' })
    await flush()
    const status = () => wrapper.get('.summary').text()
    expect(wrapper.get('section[aria-label="Unresolved writes needing your check"]').text()).toMatch(/Check the transfer on the exchange/)
    const box = wrapper.get('input[aria-label="Search the journal"]')
    const search = async (q: string) => {
      await box.setValue(q)
      await new Promise((r) => setTimeout(r, 350))
      await flush()
    }
    await search('4242')
    expect(status()).toMatch(/^1 entries match "4242"/)
    expect(desk.callsTo('journal.query').at(-1)).toMatchObject({ q: '4242' })
    await search('feedbeef')
    expect(status()).toMatch(/^1 entries/)
    await search('cash-1') // an account name searches by its address
    expect(desk.callsTo('journal.query').at(-1)).toMatchObject({ q: CASH })
    expect(status()).toMatch(/^1 entries/)
    await search('')
    await wrapper.get('select[aria-label="Action type"]').setValue('transfer')
    await wrapper.get('input[aria-label="From"]').setValue('2026-11-21T00:00')
    await wrapper.get('input[aria-label="To"]').setValue('2026-11-23T00:00')
    button('Apply filters')!.click()
    await flush()
    expect(desk.callsTo('journal.query').at(-1)).toEqual({
      limit: 1000,
      actionType: 'transfer',
      sinceMs: Date.parse('2026-11-21T00:00'),
      untilMs: Date.parse('2026-11-23T00:00') + 59_999,
    })
    expect(
      [...(wrapper.get('select[aria-label="Action type"]').element as HTMLSelectElement).querySelectorAll('option')].map(
        (o) => o.textContent,
      ),
    ).toEqual(['any type', 'order', 'transfer'])
  })

  it('every column header but History sorts', async () => {
    desk.handle('journal.query', () => [submission({ id: '1', actionType: 'transfer' })])
    await mountScreen(JournalView, { path: '/journal' })
    await flush()
    const sortable = [...document.querySelectorAll('th.n-data-table-th--sortable')].map((c) => c.getAttribute('data-col-key'))
    expect(sortable).toEqual(expect.arrayContaining(['createdAt', 'account', 'actionType', 'state', 'signer', 'oids', 'cloid', 'txHash']))
    expect(sortable).not.toContain('history')
  })

  it('highlights unresolved entries and exports the filtered journal as a download', async () => {
    desk.handle('journal.query', () => [
      submission({ id: '1', state: 'unknown' }),
      submission({ id: '2', cloid: '0xffffffffffffffffffffffffffffffff', state: 'accepted' }),
    ])
    desk.handle('journal.export', ({ format }) => ({ filename: `journal.${format}`, mime: 'text/csv', content: 'cloid,state\n' }))
    const created: Blob[] = []
    const createObjectURL = vi.fn((b: Blob) => {
      created.push(b)
      return 'blob:fake'
    })
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() })
    const clicks: string[] = []
    const origClick = HTMLAnchorElement.prototype.click
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      clicks.push(this.download)
    }
    try {
      const { wrapper } = await mountScreen(JournalView, { path: '/journal' })
      await flush()
      expect(wrapper.get('[role="status"]').text()).toMatch(/2 entries, 1 unresolved/)
      await wrapper.get('select[aria-label="Filter state"]').setValue('unknown')
      button('Export CSV')!.click()
      await flush()
      expect(desk.callsTo('journal.export')).toEqual([{ format: 'csv', filter: { state: 'unknown' } }])
      expect(clicks).toEqual(['journal.csv'])
      expect(await created[0]?.text()).toBe('cloid,state\n')
      expect(wrapper.text()).toContain('Exported journal.csv')
      wrapper.unmount()
    } finally {
      HTMLAnchorElement.prototype.click = origClick
    }
  })
})

describe('JournalView accessibility', () => {
  it('has no critical or serious accessibility violations', async () => {
    desk.handle('journal.query', () => [
      submission({ id: '1', state: 'unknown' }),
      submission({ id: '2', cloid: '0xffffffffffffffffffffffffffffffff', state: 'accepted' }),
    ])
    await mountScreen(JournalView, { path: '/journal' })
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
  })
})
