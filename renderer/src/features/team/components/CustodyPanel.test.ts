// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Address, TeamCustodyView, TeamMemberView } from '../../../../../main/contract/types'
import { seriousA11yViolations } from '../../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../../testing/fake-desk'
import { mountScreen } from '../../../testing/mount'
import { BOB, ME } from '../testing'
import CustodyPanel from './CustodyPanel.vue'

const ACCOUNT = '0x9bf03ccd2aff56759686cd3d9cc634e1d2eaa745' as Address
const members: TeamMemberView[] = [
  { address: ME, name: 'Alice', roles: ['admin', 'trader'], me: true },
  { address: BOB, name: 'Bob', roles: ['approver'], me: false },
]
let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})

describe('CustodyPanel', () => {
  it('lists team-held accounts; an admin splits a key among chosen holders (main does the split), axe clean', async () => {
    let held: TeamCustodyView[] = []
    desk.handle('team.custody.status', () => held)
    desk.handle('team.custody.split', (a) => {
      held = [
        {
          account: ACCOUNT,
          version: 1,
          threshold: 2,
          holders: members.map((m) => ({ address: m.address, name: m.name })),
          recovery: true,
          lastRelease: null,
          lastRefusal: null,
        },
      ]
      return {
        account: ACCOUNT,
        version: 1,
        threshold: (a as { threshold: number }).threshold,
        holders: [ME, BOB],
        recoveryChecksum: '0xabc',
        applied: true,
      }
    })
    const { wrapper } = await mountScreen(CustodyPanel, {
      props: { members, isAdmin: true, keyed: [{ address: ACCOUNT, label: 'Treasury A' }] },
    })
    await flush()
    expect(wrapper.get('table[aria-label="Team-held accounts"]').text()).toContain('no account is held by the team')
    expect(await seriousA11yViolations()).toEqual([])
    const submit = () => document.querySelector<HTMLButtonElement>('button[aria-label="Split the key among the holders"]')!
    expect(submit().disabled).toBe(true) // no account, no holders yet
    await wrapper.get('select[aria-label="Account to put under team custody"]').setValue(ACCOUNT)
    await wrapper.get('input[aria-label="Alice holds a share"]').setValue(true)
    await wrapper.get('input[aria-label="Bob holds a share"]').setValue(true)
    await wrapper.get('input[aria-label="Recovery share file path"]').setValue('/safe/recovery.json')
    await flush()
    expect(submit().disabled).toBe(false)
    submit().click()
    await flush()
    expect(desk.callsTo('team.custody.split')).toEqual([
      { account: ACCOUNT, holders: [ME, BOB], threshold: 2, recoveryFile: '/safe/recovery.json' },
    ])
    expect(wrapper.get('[data-testid="custody-done"]').text()).toMatch(
      /the key has left this vault; 2 of 2 holders' shares sign; recovery file checksum 0xabc/,
    )
    expect(wrapper.get('table[aria-label="Team-held accounts"]').text()).toMatch(
      /2 of 3 \(split version 1\)\s*Alice, Bob, and an offline recovery share\s*none yet/,
    )
    expect(await seriousA11yViolations()).toEqual([])
    wrapper.unmount()
  })

  it('shows the last refusal the chain names; an admin re-splits a held key to the remaining members, axe clean', async () => {
    const held: TeamCustodyView[] = [
      {
        account: ACCOUNT,
        version: 1,
        threshold: 2,
        holders: [
          { address: ME, name: 'Alice' },
          { address: '0x00000000000000000000000000000000000000c0' as Address, name: 'Carol (left)' },
        ],
        recovery: true,
        lastRelease: null,
        lastRefusal: {
          at: Date.now() - 60_000,
          by: BOB,
          byName: 'Bob',
          side: 'release',
          code: null,
          reason: 'the proposal is open',
          proposalId: '0x' + '1'.repeat(64),
        },
      },
    ]
    desk.handle('team.custody.status', () => held)
    desk.handle('team.custody.resplit', (a) => ({
      account: ACCOUNT,
      version: 2,
      threshold: (a as { threshold: number }).threshold,
      holders: (a as { holders: Address[] }).holders,
      recoveryChecksum: null,
      applied: true,
    }))
    const { wrapper } = await mountScreen(CustodyPanel, { props: { members, isAdmin: true, keyed: [] } })
    await flush()
    expect(wrapper.get('table[aria-label="Team-held accounts"]').text()).toMatch(/Bob's desk released nothing, .*: the proposal is open/)
    await wrapper.get(`button[aria-label="Re-split the key of ${ACCOUNT}"]`).trigger('click')
    await flush()
    const form = wrapper.get('form[aria-label="Re-split a team-held key"]')
    expect(form.text()).toContain('No longer members: Carol (left)')
    // The current holders still members are kept; Bob is added.
    expect((wrapper.get('input[aria-label="Alice holds a new share"]').element as HTMLInputElement).checked).toBe(true)
    await wrapper.get('input[aria-label="Bob holds a new share"]').setValue(true)
    await wrapper.get('input[aria-label="Current recovery share file path"]').setValue('/safe/recovery.json')
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
    document.querySelector<HTMLButtonElement>('button[aria-label="Re-split the key among the new holders"]')!.click()
    await flush()
    expect(desk.callsTo('team.custody.resplit')).toEqual([
      { account: ACCOUNT, holders: [ME, BOB], threshold: 2, recoveryFile: null, recoveryShareFile: '/safe/recovery.json' },
    ])
    expect(wrapper.get('[data-testid="custody-resplit-done"]').text()).toMatch(/Re-split: split version 2; the old shares are retired/)
    wrapper.unmount()
  })

  it('offers no split to a member who is not an admin', async () => {
    desk.handle('team.custody.status', () => [])
    const { wrapper } = await mountScreen(CustodyPanel, {
      props: { members, isAdmin: false, keyed: [{ address: ACCOUNT, label: 'Treasury A' }] },
    })
    await flush()
    expect(wrapper.find('form[aria-label="Put an account under team custody"]').exists()).toBe(false)
    wrapper.unmount()
  })
})
