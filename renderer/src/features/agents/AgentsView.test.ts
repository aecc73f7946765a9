// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentSlotView, RotationStep } from '../../../../main/contract/types'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { CASH, account } from '../../testing/fixtures'
import { seriousA11yViolations } from '../../testing/axe'
import { mountScreen } from '../../testing/mount'
import AgentsView from './AgentsView.vue'
import { wireEvents } from '../../app/store'

let desk: FakeDesk
const AGENT = '0x3333333333333333333333333333333333333333' as const
const NEW_AGENT = '0x4444444444444444444444444444444444444444' as const
const slots = (): AgentSlotView[] => [
  { slot: 0, agent: AGENT, epoch: '3', keyInVault: true, approvedAt: Date.now() - 3_600_000 },
  { slot: 1, agent: null, epoch: null, keyInVault: false, approvedAt: null },
  { slot: 2, agent: null, epoch: null, keyInVault: false, approvedAt: null },
  { slot: 3, agent: null, epoch: null, keyInVault: false, approvedAt: null },
]

beforeEach(() => {
  desk = installFakeDesk()
  desk.handle('accounts.list', () => [account(CASH, 'balance', 'cash-1')])
  document.body.innerHTML = ''
})
afterEach(() => {
  document.body.innerHTML = ''
})
const button = (label: string) => document.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`)

describe('AgentsView', () => {
  it('shows the 4 slots and each rotation step with its outcome', async () => {
    // Gap-free rotation: the new agent lands in spare slot 1, slot 0 is revoked.
    let current = slots()
    desk.handle('agents.list', () => current)
    desk.handle('agents.rotate', () => {
      current = current.map((x) =>
        x.slot === 0
          ? { ...x, agent: null, epoch: null, keyInVault: false, approvedAt: null }
          : x.slot === 1
            ? { ...x, agent: NEW_AGENT, epoch: '4', keyInVault: true, approvedAt: Date.now() }
            : x,
      )
      return rotated
    })
    const rotated: { slot: AgentSlotView; steps: RotationStep[] } = {
      slot: { slot: 1 as const, agent: NEW_AGENT, epoch: '4', keyInVault: true, approvedAt: Date.now() },
      steps: [
        { step: 'generate' as const, status: 'done' as const, detail: NEW_AGENT },
        { step: 'approve' as const, status: 'done' as const, detail: 'accepted' },
        { step: 'verify-epoch' as const, status: 'done' as const, detail: 'epoch 4' },
        { step: 'switch-signer' as const, status: 'done' as const, detail: '' },
        { step: 'retire-old-key', status: 'done' as const, detail: AGENT },
      ],
    }
    const { wrapper } = await mountScreen(AgentsView, { props: { owner: CASH } })
    await flush()
    expect(wrapper.findAll('[aria-label="Agent slots"] tbody tr')).toHaveLength(4)
    expect(button('Approve a new agent in slot 1')).not.toBeNull()
    button('Rotate agent in slot 0')!.click()
    await flush()
    expect(desk.callsTo('agents.rotate')).toEqual([{ owner: CASH, slot: 0 }])
    const rotation = wrapper.get('[aria-label="Rotation of slot 0"]').text()
    expect(rotation).toContain('Generate the new agent key: done')
    expect(rotation).toContain('Retire the old key from the vault: done')
    const rows = wrapper.findAll('[aria-label="Agent slots"] tbody tr').map((r) => r.text())
    expect(rows[0]).toContain('empty')
    expect(rows[1]).toContain(NEW_AGENT)
    expect(desk.callsTo('agents.list').length).toBe(2)
    wrapper.unmount()
  })

  it('shows a failed rotation with its code and advice', async () => {
    desk.handle('agents.list', () => slots())
    desk.fail('agents.rotate', { code: 'AgentEpochMismatch', message: 'epoch moved' })
    const { wrapper } = await mountScreen(AgentsView, { props: { owner: CASH } })
    await flush()
    button('Rotate agent in slot 0')!.click()
    await flush()
    expect(wrapper.get('[data-testid="error-code"]').text()).toBe('AgentEpochMismatch')
    expect(wrapper.get('[data-testid="error-advice"]').text()).toMatch(/Rotate the agent/)
    wrapper.unmount()
  })
})

describe('AgentsView accessibility', () => {
  it('has no critical or serious accessibility violations', async () => {
    desk.handle('agents.list', () => slots())
    await mountScreen(AgentsView, { props: { owner: CASH } })
    await flush()
    expect(await seriousA11yViolations()).toEqual([])
  })
})

describe('AgentsView follows pushes', () => {
  it('an agent approved elsewhere (another window, the desk command line) shows without a click', async () => {
    desk.handle('agents.list', () => slots())
    const { wrapper } = await mountScreen(AgentsView, { props: { owner: CASH } })
    const off = wireEvents()
    await flush()
    expect(wrapper.get('table[aria-label="Agent slots"] tbody tr:nth-child(4)').text()).toContain('empty')
    const pushed = slots().map((x) => (x.slot === 3 ? { ...x, agent: NEW_AGENT, epoch: '5', keyInVault: true, approvedAt: Date.now() } : x))
    desk.emit('state.agents', { owner: CASH, slots: pushed, fetchedAt: Date.now() })
    await flush()
    expect(wrapper.get('table[aria-label="Agent slots"] tbody tr:nth-child(4)').text()).toContain(NEW_AGENT)
    // another owner's slots leave this page alone
    desk.emit('state.agents', { owner: AGENT, slots: slots(), fetchedAt: Date.now() + 1 })
    await flush()
    expect(wrapper.get('table[aria-label="Agent slots"] tbody tr:nth-child(4)').text()).toContain(NEW_AGENT)
    off()
    wrapper.unmount()
  })
})
