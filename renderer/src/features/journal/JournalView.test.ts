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
  it('finds a write by cloid, tx hash or account name, and lists unresolved writes with their acknowledgement', async () => {
    desk.handle('journal.query', () => [
      submission({ id: '1', cloid: '0xaaaa0000000000000000000000000001', state: 'accepted', outcome: 'success', txHash: '0xfeedbeef' }),
      submission({ id: '2', cloid: '0xbbbb0000000000000000000000000002', state: 'unresolved', outcome: 'unresolved', advice: 'Check the transfer on the exchange', account: CASH }),
    ])
    const { wrapper } = await mountScreen(JournalView, { path: '/journal' })
    await flush()
    const status = () => wrapper.get('.summary').text()
    expect(wrapper.get('section[aria-label="Unresolved writes needing your check"]').text()).toMatch(/Check the transfer on the exchange/)
    const box = wrapper.get('input[aria-label="Search the journal"]')
    await box.setValue('feedbeef')
    await flush()
    expect(status()).toMatch(/^1 of 2 entries match "feedbeef"/)
    await box.setValue('0xbbbb')
    await flush()
    expect(status()).toMatch(/^1 of 2 entries/)
    await box.setValue('cash-1')
    await flush()
    expect(status()).toMatch(/^1 of 2 entries/) // by the account name of #2
    await box.setValue('no such write')
    await flush()
    expect(status()).toMatch(/^0 of 2 entries/)
  })

  it('highlights unresolved entries and exports the filtered journal as a download', async () => {
    desk.handle('journal.query', () => [submission({ id: '1', state: 'unknown' }), submission({ id: '2', cloid: '0xffffffffffffffffffffffffffffffff', state: 'accepted' })])
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
    desk.handle('journal.query', () => [submission({ id: '1', state: 'unknown' }), submission({ id: '2', cloid: '0xffffffffffffffffffffffffffffffff', state: 'accepted' })])
    await mountScreen(JournalView, { path: '/journal' })
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
  })
})
