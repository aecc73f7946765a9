// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { submission } from '../../testing/fixtures'
import { mountScreen } from '../../testing/mount'
import { CAROL, ME, PID, detail, teamStatus } from './testing'
import ProposalView from './ProposalView.vue'

let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [])
  desk.handle('team.status', () => teamStatus())
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})
const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)
const mountDetail = () => mountScreen(ProposalView, { path: `/approvals/${PID}`, props: { id: PID } })

describe('ProposalView', () => {
  it('shows the review field by field, and who approved when', async () => {
    desk.handle('team.proposal', () => detail())
    const { wrapper } = await mountDetail()
    await flush()
    expect(desk.callsTo('team.proposal')).toEqual([{ id: PID }])
    expect(wrapper.get('h2').text()).toBe('Withdraw 25,000 USDC to cold-1')
    // The amount in units with its symbol, in the facts and in the exact action; never the atoms.
    expect(wrapper.get('[data-testid="proposal-amount"]').text()).toBe('25,000 USDC')
    expect(wrapper.get('pre[aria-label="Exact action"]').text()).toContain('"amount": "25,000 USDC"')
    expect(wrapper.text()).not.toContain('2500000000000')
    // Field by field: nothing differs in the fixture; a value this desk cannot read is said so, not marked.
    expect(wrapper.find('[data-testid="review-differs"]').exists()).toBe(false)
    expect(wrapper.get('[data-testid="review-same"]').text()).toMatch(/Every field this desk can read/)
    const usd = wrapper.get('table[aria-label="Review, field by field"] tr[data-field="usd"]')
    expect(usd.attributes('data-state')).toBe('unreadable')
    expect(usd.text()).toMatch(/cannot read here \(this desk has no fresh mark/)
    expect(wrapper.text()).not.toContain('— differs')
    const trail = wrapper.get('table[aria-label="Who approved when"] tbody').text()
    expect(trail).toMatch(/approved\s*Carol/)
    expect(trail).toMatch(/approved\s*Carol0xcccc…cccc\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(.+ ago\)/)
    wrapper.unmount()
  })

  it('an unknown value says so and how it was judged, never "moves no value" or $0', async () => {
    const note = 'value unknown when proposed (no fresh mark): the team policy judged it at its worst case'
    desk.handle('team.proposal', () => detail({ usd: null, usdUnknown: note }))
    const { wrapper } = await mountDetail()
    await flush()
    const value = wrapper.get('[data-testid="proposal-value"]').text()
    expect(value).toContain(note)
    expect(value).not.toMatch(/moves no value|\$0/)
    wrapper.unmount()
  })

  it('marks exactly the field this desk reads differently; wording and case never count; a preview it cannot run is not a warning', async () => {
    const base = detail()
    desk.handle('team.proposal', () =>
      detail({
        // The two previews say the same thing in other words and letter case: not a difference.
        initiatorPreview: { title: 't', lines: ['from 0x9510…, signed by its owner key', 'Withdraw 25,000 USDC'] },
        recomputed: null,
        recomputeError: 'DestinationNotAllowed: neither one of your accounts nor in the address book',
        review: base.review.map((f) =>
          f.key === 'destination' ? { ...f, mine: '0x3333333333333333333333333333333333333333', state: 'differs' as const } : f,
        ),
      }),
    )
    const { wrapper } = await mountDetail()
    await flush()
    expect(wrapper.get('[data-testid="review-differs"]').attributes('role')).toBe('alert')
    expect(wrapper.get('[data-testid="review-differs"]').text()).toMatch(/one field differently from the proposal: Destination\./)
    const marked = wrapper
      .findAll('table[aria-label="Review, field by field"] tr[data-state="differs"]')
      .map((r) => r.attributes('data-field'))
    expect(marked).toEqual(['destination'])
    expect(wrapper.get('[data-testid="recompute-error"]').text()).toMatch(
      /Not run on this desk: DestinationNotAllowed.*read from the exact action itself/,
    )
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it('approves: main records it and the detail is read again', async () => {
    let approved = false
    desk.handle('team.proposal', () =>
      approved
        ? detail({
            approvals: [...detail().approvals, { address: ME, name: 'Alice', at: Date.now(), counts: true }],
            status: 'approved',
            canApprove: false,
            canReject: false,
          })
        : detail(),
    )
    desk.handle('team.approve', () => {
      approved = true
      return detail({ status: 'approved' })
    })
    const { wrapper } = await mountDetail()
    await flush()
    button('Approve the proposal')!.click()
    await flush()
    expect(desk.callsTo('team.approve')).toEqual([{ id: PID }])
    expect(wrapper.get('[data-testid="proposal-done"]').text()).toBe('Approved: your approval is in the team log.')
    expect(wrapper.get('[data-testid="proposal-status"]').attributes('data-status')).toBe('approved')
    expect(wrapper.get('table[aria-label="Who approved when"] tbody').text()).toMatch(/Alice/)
    expect(button('Approve the proposal')).toBeNull()
    wrapper.unmount()
  })

  it('shows main refusing an approval (store unreachable) with its code', async () => {
    desk.handle('team.proposal', () => detail())
    desk.fail('team.approve', { code: 'TeamStoreUnreachable', message: 'the team store cannot be reached' })
    const { wrapper } = await mountDetail()
    await flush()
    button('Approve the proposal')!.click()
    await flush()
    expect(wrapper.get('[role="alert"].error-notice').text()).toMatch(/TeamStoreUnreachable/)
    wrapper.unmount()
  })

  it('rejecting requires a reason: the dialog refuses to send without one, then sends it', async () => {
    desk.handle('team.proposal', () => detail())
    desk.handle('team.reject', () => detail({ status: 'rejected' }))
    const { wrapper } = await mountDetail()
    await flush()
    const opener = button('Reject: give a reason')!
    opener.focus()
    opener.click()
    await flush()
    const dialog = document.querySelector<HTMLElement>('[role="dialog"]')!
    expect(dialog.getAttribute('aria-modal')).toBe('true')
    expect(dialog.querySelector('h2')!.textContent).toBe('Reject: Withdraw 25,000 USDC to cold-1')
    const reason = dialog.querySelector<HTMLTextAreaElement>('textarea[aria-label="Reason for rejecting"]')!
    expect(document.activeElement).toBe(reason)
    const send = button('Reject the proposal')!
    expect(send.disabled).toBe(true)
    // Submitting the form with no reason sends nothing.
    dialog.querySelector('form')!.dispatchEvent(new Event('submit', { cancelable: true }))
    await flush()
    expect(desk.callsTo('team.reject')).toEqual([])
    reason.value = '  '
    reason.dispatchEvent(new Event('input'))
    await flush()
    expect(button('Reject the proposal')!.disabled).toBe(true)
    reason.value = 'destination not in the cold list'
    reason.dispatchEvent(new Event('input'))
    await flush()
    expect(button('Reject the proposal')!.disabled).toBe(false)
    button('Reject the proposal')!.click()
    await flush()
    expect(desk.callsTo('team.reject')).toEqual([{ id: PID, reason: 'destination not in the cold list' }])
    expect(document.querySelector('[role="dialog"]')).toBeNull()
    expect(wrapper.get('[data-testid="proposal-done"]').text()).toBe('Rejected: the proposal is closed.')
    wrapper.unmount()
  })

  it('Escape closes the reject dialog without rejecting, and focus returns to the opener', async () => {
    desk.handle('team.proposal', () => detail())
    const { wrapper } = await mountDetail()
    await flush()
    const opener = button('Reject: give a reason')!
    opener.focus()
    opener.click()
    await flush()
    document
      .querySelector<HTMLElement>('[role="dialog"]')!
      .dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }))
    await flush()
    expect(document.querySelector('[role="dialog"]')).toBeNull()
    expect(document.activeElement).toBe(opener)
    expect(desk.callsTo('team.reject')).toEqual([])
    wrapper.unmount()
  })

  it('executes an approved proposal when this desk holds the key, and shows the outcome', async () => {
    let executed = false
    const approved = detail({
      status: 'approved',
      canApprove: false,
      canReject: false,
      canExecute: true,
      approvals: [
        { address: CAROL, name: 'Carol', at: Date.now() - 5000, counts: true },
        { address: ME, name: 'Alice', at: Date.now() - 1000, counts: true },
      ],
    })
    desk.handle('team.proposal', () =>
      executed
        ? {
            ...approved,
            status: 'final',
            canExecute: false,
            outcome: { state: 'accepted', finalStatus: 'success', code: null, at: Date.now() },
            outcomes: [{ address: ME, state: 'accepted', finalStatus: 'success', code: null, at: Date.now() }],
          }
        : approved,
    )
    desk.handle('team.execute', () => {
      executed = true
      return { submission: submission({ state: 'accepted', outcome: 'success' }), proposalId: PID, leaves: [] }
    })
    const { wrapper } = await mountDetail()
    await flush()
    expect(button('Approve the proposal')).toBeNull()
    button('Execute the approved proposal')!.click()
    await flush()
    expect(desk.callsTo('team.execute')).toEqual([{ id: PID }])
    expect(wrapper.get('[data-testid="proposal-done"]').text()).toBe('Executed: accepted.')
    expect(wrapper.get('[data-testid="proposal-status"]').text()).toMatch(/done — outcome: accepted \(success\)/)
    expect(button('Execute the approved proposal')).toBeNull()
    wrapper.unmount()
  })

  it('shows the evidence a taking-over desk recorded when it could not establish the outcome', async () => {
    desk.handle('team.proposal', () =>
      detail({
        status: 'final',
        canApprove: false,
        canReject: false,
        canExecute: false,
        outcome: { state: 'unresolved', finalStatus: null, code: 'ExpiredTx', at: Date.now() },
        outcomes: [
          {
            address: CAROL,
            state: 'unresolved',
            finalStatus: null,
            code: 'ExpiredTx',
            at: Date.now(),
            evidence: 'txStatusByCloid: not found',
          },
        ],
      }),
    )
    const { wrapper } = await mountDetail()
    await flush()
    expect(wrapper.get('[data-testid="outcome-evidence"]').text()).toBe('(checked: txStatusByCloid: not found)')
    wrapper.unmount()
  })

  it('offers no Execute without the key, and says why nothing is offered on my own open proposal', async () => {
    desk.handle('team.proposal', () => detail({ mine: true, canApprove: false, canReject: true, canExecute: false }))
    const { wrapper } = await mountDetail()
    await flush()
    expect(button('Execute the approved proposal')).toBeNull()
    expect(button('Approve the proposal')).toBeNull()
    desk.handle('team.proposal', () => detail({ mine: true, canApprove: false, canReject: false, canExecute: false }))
    wrapper.unmount()
    const again = await mountDetail()
    await flush()
    expect(again.wrapper.text()).toContain('Waiting on others: you cannot approve your own proposal.')
    again.wrapper.unmount()
  })

  it('has no critical or serious accessibility violation, with the reject dialog open too', async () => {
    desk.handle('team.proposal', () => detail({ rejection: null }))
    await mountDetail()
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
    button('Reject: give a reason')!.click()
    await flush()
    expect(document.querySelector('[role="dialog"]')).not.toBeNull()
    expect(await seriousA11yViolations()).toEqual([])
  })
})
