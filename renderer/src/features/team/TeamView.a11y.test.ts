// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seriousA11yViolations } from '../../testing/axe'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { mountScreen } from '../../testing/mount'
import { ME, teamMembers, teamPolicy, teamStatus } from './testing'
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
function live(): void {
  desk.handle('team.status', () => teamStatus())
  desk.handle('team.members', () => teamMembers())
  desk.handle('team.policy', () => teamPolicy())
}

describe('TeamView accessibility', () => {
  it('off with the set-up form: no critical or serious violation', async () => {
    desk.handle('team.status', () =>
      teamStatus({
        configured: false,
        state: 'off',
        store: null,
        teamId: null,
        teamName: null,
        me: { address: null, name: null, roles: [] },
      }),
    )
    await mountScreen(TeamView, { path: '/team' })
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
  })
  it('live with roster, role editing, policy and a verdict: no critical or serious violation', async () => {
    live()
    desk.handle('team.verify', () => ({ ok: true, entries: 12, verified: 12, broken: null, headSeq: '11', headDigest: null }))
    await mountScreen(TeamView, { path: '/team' })
    await flush()
    button('Change the roles of Bob')!.click()
    button('Change the rules: write a new policy version')!.click()
    button('Verify chain: check every entry of the team log')!.click()
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
  })
  it('empty store (start or join) and tampered: no critical or serious violation', async () => {
    desk.handle('team.status', () => teamStatus({ teamId: null, teamName: null, me: { address: ME, name: null, roles: [] } }))
    const first = await mountScreen(TeamView, { path: '/team' })
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
    first.wrapper.unmount()
    document.body.innerHTML = ''
    desk.handle('team.status', () => teamStatus({ state: 'tampered', broken: { seq: '7', reason: 'bad signature' } }))
    await mountScreen(TeamView, { path: '/team' })
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
  })
})
