// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Address, TeamPolicyView } from '../../../../main/contract/types'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { mountScreen } from '../../testing/mount'
import { wireEvents } from '../../app/store'
import { BOB, CAROL, ME, teamMembers as members, teamPolicy as policy, teamStatus } from './testing'
import TeamView from './TeamView.vue'

let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [])
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})
const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)
const input = (label: string) => document.querySelector<HTMLInputElement>(`[aria-label="${label}"]`)
async function type(label: string, value: string): Promise<void> {
  const el = input(label)!
  el.value = value
  el.dispatchEvent(new Event('input'))
  await flush()
}

function live(): void {
  desk.handle('team.status', () => teamStatus())
  desk.handle('team.members', () => members())
  desk.handle('team.policy', () => policy())
}

describe('TeamView states', () => {
  it('off: says the desk works alone and connects to a store with the connection string, password and passphrase (cleared after)', async () => {
    let configured = false
    desk.handle('team.status', () =>
      configured
        ? teamStatus({ teamId: null, teamName: null, me: { address: null, name: null, roles: [] } })
        : teamStatus({
            configured: false,
            state: 'off',
            store: null,
            teamId: null,
            teamName: null,
            me: { address: null, name: null, roles: [] },
          }),
    )
    desk.handle('team.configure', () => {
      configured = true
      return teamStatus({ teamId: null, teamName: null, me: { address: null, name: null, roles: [] } })
    })
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    expect(wrapper.get('[data-testid="team-link"]').text()).toMatch(/Team mode is off.*works alone/)
    expect(button('Connect to the team store')!.disabled).toBe(true)
    await type('Connection string', 'postgresql://desk@127.0.0.1:5544/team')
    await type('Database password', 'pg-secret')
    await type('Vault passphrase to seal the password', 'vault-pass')
    expect(button('Connect to the team store')!.disabled).toBe(false)
    button('Connect to the team store')!.click()
    await flush()
    expect(desk.callsTo('team.configure')).toEqual([
      { connectionString: 'postgresql://desk@127.0.0.1:5544/team', password: 'pg-secret', passphrase: 'vault-pass' },
    ])
    expect(input('Database password')?.value ?? '').toBe('')
    // An empty store: start the team or join one.
    expect(wrapper.text()).toContain('Start or join a team')
    expect(wrapper.get('[data-testid="team-link"]').attributes('data-state')).toBe('live')
    wrapper.unmount()
  })

  it('unreachable: says so in plain words, that team writes are refused and nothing is lost, and what to check', async () => {
    desk.handle('team.status', () =>
      teamStatus({ state: 'unreachable', detail: 'Team store unreachable since 12:01:04 (connection refused).' }),
    )
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    const link = wrapper.get('[data-testid="team-link"]')
    expect(link.attributes('role')).toBe('alert')
    expect(link.text()).toMatch(/Team store unreachable/)
    expect(link.text()).toMatch(/connection refused/)
    expect(link.text()).toMatch(/refused until it is back; nothing is lost/)
    expect(link.text()).toMatch(/database server is running/)
    // No roster or policy is read from a store that cannot be reached.
    expect(desk.callsTo('team.members')).toEqual([])
    wrapper.unmount()
  })

  it('tampered: names the first broken link and tells the operator what to do', async () => {
    desk.handle('team.status', () =>
      teamStatus({
        state: 'tampered',
        detail: 'entry 7 does not verify',
        broken: { seq: '7', reason: 'signer is not an admin of the roster before it' },
      }),
    )
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    const link = wrapper.get('[data-testid="team-link"]')
    expect(link.text()).toMatch(/Team log tampered with/)
    expect(link.text()).toMatch(/Entry 7 does not verify: signer is not an admin of the roster before it/)
    expect(link.text()).toMatch(/tell your admins/)
    expect(wrapper.get('[data-testid="team-broken"]').text()).toBe('First broken link: entry 7')
    wrapper.unmount()
  })
})

describe('TeamView set-up', () => {
  it('starts a team as first admin, or shows my identity address to hand to an admin', async () => {
    desk.handle('team.status', () => teamStatus({ teamId: null, teamName: null, me: { address: null, name: null, roles: [] } }))
    desk.handle('team.init', () => teamStatus())
    desk.handle('team.join', () => ({ address: ME }))
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    button('Show my identity address')!.click() // no passphrase yet: nothing happens
    await flush()
    expect(desk.callsTo('team.join')).toEqual([])
    await type('Vault passphrase to join', 'vault-pass')
    button('Show my identity address')!.click()
    await flush()
    expect(desk.callsTo('team.join')).toEqual([{ passphrase: 'vault-pass' }])
    expect(wrapper.get('[data-testid="my-identity"]').text()).toContain(ME)

    await type('Team name', 'Ops')
    await type('Your name in the team', 'Alice')
    await type('Vault passphrase to start the team', 'vault-pass')
    desk.handle('team.members', () => members())
    desk.handle('team.policy', () => policy())
    desk.handle('team.status', () => teamStatus())
    button('Start the team as first admin')!.click()
    await flush()
    expect(desk.callsTo('team.init')).toEqual([{ teamName: 'Ops', name: 'Alice', passphrase: 'vault-pass' }])
    expect(wrapper.find('table[aria-label="Team members"]').exists()).toBe(true)
    wrapper.unmount()
  })
})

describe('TeamView roster, policy and audit', () => {
  it('lists members with names, addresses and roles; an admin adds, re-roles and removes (after a second click)', async () => {
    live()
    desk.handle('team.members.add', (a) => ({
      adminQuorum: 1,
      members: [...members().members, { address: a.address as Address, name: a.name, roles: a.roles, me: false }],
    }))
    desk.handle('team.members.roles', (a) => ({
      adminQuorum: 1,
      members: members().members.map((m) => (m.address === a.address ? { ...m, roles: a.roles } : m)),
    }))
    desk.handle('team.members.remove', (a) => ({ adminQuorum: 1, members: members().members.filter((m) => m.address !== a.address) }))
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    const rows = wrapper.findAll('table[aria-label="Team members"] tbody tr')
    expect(rows.map((r) => r.text())).toEqual([
      expect.stringMatching(/Alice \(me\).*0xaaaa…aaaa.*admin, approver/),
      expect.stringMatching(/Bob.*0xbbbb…bbbb.*trader/),
    ])
    // Nobody removes themself from here.
    expect(button('Remove Alice from the team')!.disabled).toBe(true)

    await type('New member identity address', '0xcccc00000000000000000000000000000000cccc')
    await type('New member name', 'Carol')
    button('Add member to the team')!.click()
    await flush()
    expect(desk.callsTo('team.members.add')).toEqual([
      { address: '0xcccc00000000000000000000000000000000cccc', name: 'Carol', roles: ['approver'] },
    ])

    button('Change the roles of Bob')!.click()
    await flush()
    const approver = input('approver role for Bob')!
    approver.checked = true
    approver.dispatchEvent(new Event('change'))
    await flush()
    button('Save the roles of Bob')!.click()
    await flush()
    expect(desk.callsTo('team.members.roles')).toEqual([{ address: BOB, roles: ['trader', 'approver'] }])

    button('Remove Bob from the team')!.click()
    await flush()
    expect(desk.callsTo('team.members.remove')).toEqual([])
    button('Yes, remove Bob from the team')!.click()
    await flush()
    expect(desk.callsTo('team.members.remove')).toEqual([{ address: BOB }])
    wrapper.unmount()
  })

  it('a pushed roster change (a new verified entry) shows without a click; a push that changes nothing reads nothing', async () => {
    live()
    const unwire = wireEvents()
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    const names = () => wrapper.findAll('table[aria-label="Team members"] tbody tr td:first-child').map((c) => c.text())
    expect(names()).toEqual(['Alice (me)', 'Bob'])
    const reads = desk.callsTo('team.members').length
    desk.emit('state.team', { status: teamStatus(), proposalsChanged: false })
    await flush()
    expect(desk.callsTo('team.members').length).toBe(reads)
    desk.handle('team.members', () => ({
      ...members(),
      members: [...members().members, { address: CAROL, name: 'Carol', roles: ['approver'], me: false }],
    }))
    desk.emit('state.team', { status: teamStatus({ chain: { length: 13, headSeq: '12', headDigest: null } }), proposalsChanged: false })
    await flush()
    expect(names()).toEqual(['Alice (me)', 'Bob', 'Carol'])
    unwire()
    wrapper.unmount()
  })

  it('a change another admin made (pushed as changesChanged, no new chain entry) shows in the waiting list without a click', async () => {
    live()
    const change = {
      id: `0x${'ce'.repeat(32)}`,
      kind: 'roster' as const,
      summary: [`add Carol ${CAROL} as approver`],
      signers: [{ address: BOB, name: 'Bob' }],
      quorum: 2,
      stale: null,
      signedByMe: false,
      canSign: true,
      at: Date.now(),
    }
    let waiting = [] as (typeof change)[]
    desk.handle('team.changes', () => waiting)
    const unwire = wireEvents()
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    expect(wrapper.find(`[data-testid="change-${change.id}"]`).exists()).toBe(false)
    const reads = desk.callsTo('team.changes').length
    waiting = [change]
    desk.emit('state.team', { status: teamStatus(), proposalsChanged: false, changesChanged: true })
    await flush()
    expect(desk.callsTo('team.changes').length).toBe(reads + 1)
    expect(wrapper.get(`[data-testid="change-${change.id}"]`).text()).toContain(`add Carol ${CAROL} as approver`)
    expect(button(`Sign this roster change: add Carol ${CAROL} as approver`)).not.toBeNull()
    unwire()
    wrapper.unmount()
  })

  it('shows a refused roster change with its code and advice', async () => {
    live()
    desk.fail('team.members.remove', { code: 'TeamQuorumNeeded', message: 'this change needs 2 admin signatures' })
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    button('Remove Bob from the team')!.click()
    await flush()
    button('Yes, remove Bob from the team')!.click()
    await flush()
    expect(wrapper.text()).toContain('The roster change was refused')
    expect(wrapper.text()).toContain('TeamQuorumNeeded')
    wrapper.unmount()
  })

  it('above an admin quorum of 1: my change waits, signed, listed for the other admins, who sign it here; no serious a11y violation', async () => {
    live()
    const change = {
      id: `0x${'cd'.repeat(32)}`,
      kind: 'roster' as const,
      summary: [`add Carol ${CAROL} as approver`],
      signers: [{ address: ME, name: 'Alice' }],
      quorum: 2,
      stale: null,
      signedByMe: false,
      canSign: true,
      at: Date.now(),
    }
    let waiting = [] as (typeof change)[]
    desk.handle('team.changes', () => waiting)
    desk.fail('team.members.add', {
      code: 'TeamChangeNeedsAdmins',
      message: `signed by you; the admin quorum is 2: 1 more admin(s) must sign it (desk team changes sign ${change.id})`,
    })
    desk.handle('team.changes.sign', () => ({ applied: true, signatures: 2, quorum: 2 }))
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    expect(wrapper.find('table[aria-label="Changes waiting for admin signatures"]').exists()).toBe(false)

    waiting = [{ ...change, signedByMe: true, canSign: false }]
    await type('New member identity address', CAROL)
    await type('New member name', 'Carol')
    button('Add member to the team')!.click()
    await flush()
    // Not a failure: the change is signed by me and waits for the other admins.
    expect(wrapper.text()).not.toContain('Cannot add the member')
    expect(wrapper.get('[data-testid="change-note"]').text()).toMatch(/1 more admin\(s\) must sign it/)
    const row = wrapper.get(`[data-testid="change-${change.id}"]`)
    expect(row.text()).toMatch(new RegExp(`add Carol ${CAROL} as approver.*Alice \\(1 of 2\\).*Signed by me`))
    expect(row.find('button').exists()).toBe(false) // I cannot sign twice
    expect(await seriousA11yViolations()).toEqual([])

    // On another admin's desk the same change can be signed.
    waiting = [change]
    await (await import('./store')).useTeamStore().loadTeam()
    await flush()
    button(`Sign this roster change: add Carol ${CAROL} as approver`)!.click()
    await flush()
    expect(desk.callsTo('team.changes.sign')).toEqual([{ id: change.id }])
    expect(wrapper.get('[data-testid="change-note"]').text()).toBe(
      'Signed: the quorum of 2 is reached and the change is in the team chain.',
    )
    wrapper.unmount()
  })

  it('a non-admin sees the roster without admin actions', async () => {
    live()
    desk.handle('team.status', () => teamStatus({ me: { address: BOB, name: 'Bob', roles: ['trader'] } }))
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    expect(wrapper.find('table[aria-label="Team members"]').exists()).toBe(true)
    expect(button('Remove Alice from the team')).toBeNull()
    expect(wrapper.find('form[aria-label="Add a member"]').exists()).toBe(false)
    wrapper.unmount()
  })

  it('shows the rules in order with what they match and do, and every version newest first', async () => {
    live()
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    const rules = wrapper.findAll('table[aria-label="Team policy rules"] tbody tr').map((r) => r.text())
    expect(rules[0]).toMatch(/1\s*big-withdrawals\s*withdraw worth \$10,000\.00 or more\s*needs 2 approvals from approver/)
    expect(rules[1]).toMatch(/2\s*limits-loosen\s*limits, address book when loosening\s*needs 1 approval from approver/)
    expect(rules[2]).toMatch(/3\s*rest\s*any action\s*allow/)
    const versions = wrapper.findAll('ol[aria-label="Policy versions, newest first"] > li summary').map((s) => s.text())
    expect(versions).toEqual(['Version 2 — entry 5, 0 rules', 'Version 1 — entry 2, 1 rule'])
  })

  it('an admin writes a new policy version from the rules as JSON; bad JSON is refused before main is asked', async () => {
    live()
    desk.handle('team.policy.set', (a) => ({
      version: 3,
      rules: a.rules as TeamPolicyView['rules'],
      groups: (a.groups ?? {}) as TeamPolicyView['groups'],
      names: {},
      history: [
        ...policy().history,
        { version: 3, seq: '12', digest: `0x${'55'.repeat(32)}`, rules: a.rules as TeamPolicyView['rules'], groups: {} },
      ],
    }))
    const { wrapper } = await mountScreen(TeamView, { path: '/team' })
    await flush()
    button('Change the rules: write a new policy version')!.click()
    await flush()
    const box = wrapper.get('textarea[aria-label="Team policy rules as JSON"]')
    expect(JSON.parse((box.element as HTMLTextAreaElement).value)).toEqual(policy().rules)
    await box.setValue('[{ "id": "all", ')
    button('Save rules as a new policy version')!.click()
    await flush()
    expect(desk.callsTo('team.policy.set')).toEqual([])
    expect(wrapper.text()).toMatch(/BadInput: the rules are not valid JSON/)
    await box.setValue(
      '[{ "id": "cold", "groups": ["Cold storage"], "then": { "effect": "block" } }, { "id": "all", "then": { "effect": "approve", "count": 2, "roles": ["approver", "admin"] } }]',
    )
    const groupsBox = wrapper.get('textarea[aria-label="Team account groups as JSON"]')
    expect(JSON.parse((groupsBox.element as HTMLTextAreaElement).value)).toEqual({})
    await groupsBox.setValue('{ "Cold storage": [')
    button('Save rules as a new policy version')!.click()
    await flush()
    expect(desk.callsTo('team.policy.set')).toEqual([])
    expect(wrapper.text()).toMatch(/BadInput: the account groups are not valid JSON/)
    await groupsBox.setValue(`{ "Cold storage": ["${BOB}"] }`)
    button('Save rules as a new policy version')!.click()
    await flush()
    expect(desk.callsTo('team.policy.set')).toEqual([
      {
        rules: [
          { id: 'cold', groups: ['Cold storage'], then: { effect: 'block' } },
          { id: 'all', then: { effect: 'approve', count: 2, roles: ['approver', 'admin'] } },
        ],
        groups: { 'Cold storage': [BOB] },
        // The team's names in force, sent back as they are (none in this fixture).
        names: {},
      },
    ])
    expect(wrapper.text()).toContain('Policy version 3 is in force.')
    expect(wrapper.findAll('table[aria-label="Team policy rules"] tbody tr').map((r) => r.text())).toEqual([
      expect.stringMatching(/1\s*cold\s*any action on group Cold storage\s*block/),
      expect.stringMatching(/2\s*all\s*any action\s*needs 2 approvals from approver or admin/),
    ])
    expect(wrapper.get('ul[aria-labelledby="tgroups-h"]').text()).toMatch(/^Cold storage: .+/)
    wrapper.unmount()
  })

  it('verifies the chain (naming the first broken link) and exports the log as CSV', async () => {
    live()
    desk.handle('team.verify', () => ({
      ok: false,
      entries: 12,
      verified: 6,
      broken: { seq: '6', reason: 'hash link broken' },
      headSeq: '5',
      headDigest: null,
    }))
    desk.handle('team.export', () => ({ filename: 'team-log.csv', mime: 'text/csv', content: 'seq,hash\n' }))
    const created: Blob[] = []
    Object.assign(URL, { createObjectURL: vi.fn((b: Blob) => (created.push(b), 'blob:x')), revokeObjectURL: vi.fn() })
    const origClick = HTMLAnchorElement.prototype.click
    const clicks: string[] = []
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      clicks.push(this.download)
    }
    try {
      const { wrapper } = await mountScreen(TeamView, { path: '/team' })
      await flush()
      button('Verify chain: check every entry of the team log')!.click()
      await flush()
      expect(wrapper.get('[data-testid="team-verify"]').text()).toBe(
        'Tampering: 6 of 12 entries verify; the first broken link is entry 6: hash link broken.',
      )
      button('Export CSV of the team log')!.click()
      await flush()
      expect(clicks).toEqual(['team-log.csv'])
      expect(await created[0]!.text()).toBe('seq,hash\n')
      wrapper.unmount()
    } finally {
      HTMLAnchorElement.prototype.click = origClick
    }
  })
})
