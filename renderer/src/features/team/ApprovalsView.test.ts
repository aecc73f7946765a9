// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { CREDIT, account } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import { wireEvents } from '../../app/store'
import { proposal, teamStatus } from './testing'
import ApprovalsView from './ApprovalsView.vue'

let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [account(CREDIT, 'credit', 'treasury-1')])
  desk.handle('team.status', () => teamStatus())
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})
const tab = (name: string) => document.querySelector<HTMLButtonElement>(`[role="tab"][id="ptab-${name}"]`)!

describe('ApprovalsView', () => {
  it('lists what needs my approval: title, account name and address, amount in units, USD, initiator, age, expiry, approvals so far', async () => {
    desk.handle('team.proposals', ({ view }) => (view === 'needsMe' ? [proposal()] : []))
    const { wrapper } = await mountScreen(ApprovalsView, { path: '/approvals' })
    await flush()
    expect(desk.callsTo('team.proposals')).toEqual([{ view: 'needsMe' }])
    expect(tab('needsMe').getAttribute('aria-selected')).toBe('true')
    expect(tab('needsMe').textContent).toContain('Needs my approval (1)')
    const row = wrapper.get('table[aria-label="Needs my approval"] tbody tr')
    const cells = row.findAll('td').map((c) => c.text())
    expect(cells[0]).toMatch(/Withdraw 25,000 USDC to cold-1\s*withdraw on sandbox/)
    expect(cells[1]).toMatch(/treasury-1\s*0x1111…1111/)
    expect(cells[2]).toBe('25,000 USDC') // the amount in units with its symbol, never atoms
    expect(cells[3]).toBe('$25,000.00')
    expect(cells[4]).toBe('Bob')
    // Ages and the countdown follow the screen's shared 1 s clock.
    expect(cells[5]).toMatch(/^\d+m \d+s ago$/)
    expect(cells[6]).toMatch(/^in \d+[hm] \d+[ms]$/)
    expect(cells[7]).toMatch(/^1 of 2\s*Carol \(.+ ago\)$/)
    expect(row.get('a').attributes('href')).toBe(`/approvals/${proposal().id}`)
    wrapper.unmount()
  })

  it('shows a guardrail settings proposal (address book) as desk-wide, with its readable change', async () => {
    const book = proposal({
      account: '0x0000000000000000000000000000000000000000',
      kind: 'address_book',
      title: 'Address book: add "warm" 0x8ba1f109551bD432803012645Ac136ddd64DBA72 on chain 1',
      usd: null,
      amount: null,
    })
    desk.handle('team.proposals', ({ view }) => (view === 'needsMe' ? [book] : []))
    const { wrapper } = await mountScreen(ApprovalsView, { path: '/approvals' })
    await flush()
    const cells = wrapper
      .get('table[aria-label="Needs my approval"] tbody tr')
      .findAll('td')
      .map((c) => c.text())
    expect(cells[0]).toMatch(/Address book: add "warm" 0x8ba1f109551bD432803012645Ac136ddd64DBA72 on chain 1\s*address book on sandbox/)
    expect(cells[1]).toMatch(/^desk-wide settings/)
    wrapper.unmount()
  })

  it('switches tabs by click and arrow keys and filters by kind and account in main', async () => {
    desk.handle('team.proposals', ({ view }) =>
      view === 'history'
        ? [
            proposal({
              status: 'final',
              outcome: { state: 'accepted', finalStatus: 'success', code: null, at: 1 },
              canApprove: false,
              canReject: false,
            }),
          ]
        : [],
    )
    const { wrapper } = await mountScreen(ApprovalsView, { path: '/approvals' })
    await flush()
    expect(wrapper.text()).toContain('Nothing needs your approval.')
    tab('needsMe').focus()
    tab('needsMe').dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }))
    await flush()
    expect(tab('waiting').getAttribute('aria-selected')).toBe('true')
    expect(document.activeElement).toBe(tab('waiting'))
    tab('history').click()
    await flush()
    expect(wrapper.get('table[aria-label="History"] tbody tr').text()).toMatch(/done — accepted/)
    await wrapper.get('select[aria-label="Kind"]').setValue('withdraw')
    await flush()
    await wrapper.get('select[aria-label="Account"]').setValue(CREDIT)
    await flush()
    expect(desk.callsTo('team.proposals').map((a) => a)).toEqual([
      { view: 'needsMe' },
      { view: 'waiting' },
      { view: 'history' },
      { view: 'history', kind: 'withdraw' },
      { view: 'history', kind: 'withdraw', account: CREDIT },
    ])
    wrapper.unmount()
  })

  it('re-reads the open list when a push says proposals changed, and says when the store is unreachable', async () => {
    let list = [proposal()]
    desk.handle('team.proposals', () => list)
    const unwire = wireEvents()
    const { wrapper } = await mountScreen(ApprovalsView, { path: '/approvals' })
    await flush()
    expect(wrapper.findAll('table[aria-label="Needs my approval"] tbody tr a')).toHaveLength(1)
    list = [proposal(), proposal({ id: `0x${'cd'.repeat(32)}`, title: 'Transfer 10 BTC to desk-2' })]
    desk.emit('state.team', { status: teamStatus({ needsMyApproval: 2 }), proposalsChanged: true })
    await flush()
    expect(wrapper.findAll('table[aria-label="Needs my approval"] tbody tr a').map((a) => a.text())).toEqual([
      'Withdraw 25,000 USDC to cold-1',
      'Transfer 10 BTC to desk-2',
    ])
    expect(tab('needsMe').textContent).toContain('(2)')
    desk.emit('state.team', {
      status: teamStatus({ state: 'unreachable', detail: 'Team store unreachable since 12:00:00.' }),
      proposalsChanged: false,
    })
    await flush()
    expect(wrapper.get('[data-testid="team-link"]').text()).toMatch(/Team store unreachable/)
    unwire()
    wrapper.unmount()
  })

  it('team mode off: points to the Team screen', async () => {
    desk.handle('team.status', () => teamStatus({ configured: false, state: 'off' }))
    desk.handle('team.proposals', () => [])
    const { wrapper } = await mountScreen(ApprovalsView, { path: '/approvals' })
    await flush()
    expect(wrapper.text()).toMatch(/Team mode is off/)
    expect(wrapper.get('a[href="/team"]').text()).toBe('Set up team mode')
    wrapper.unmount()
  })

  it('has no critical or serious accessibility violation', async () => {
    desk.handle('team.proposals', () => [proposal(), proposal({ id: `0x${'cd'.repeat(32)}`, usd: null, approvals: [] })])
    await mountScreen(ApprovalsView, { path: '/approvals' })
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
  })
})
