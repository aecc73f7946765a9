import { describe, expect, it, vi } from 'vitest'
import type { AgentSlotsView } from '../../../contract/types'
import { EventHub } from '../../ipc/events'
import type { Submission } from '../../journal'
import type { NetworkSession } from '../../session'
import { AgentsLive } from './agents-live'

const OWNER = '0x' + 'ab'.repeat(20)
const AGENT = '0x' + 'cd'.repeat(20)

/** A session with only what the agents' follow-up uses: the journal's changes, the pool's reconnects, `userAgents`. */
function fakeSession() {
  const journalListeners = new Set<(s: Submission) => void>()
  const reconnectListeners = new Set<() => void>()
  const userAgents = vi.fn(async (_args: { user: string }, _opts: { lane: string }) => ({
    agents: [{ slot_id: 1, agent: AGENT, epoch: 7n }],
  }))
  const s = {
    name: 'sandbox',
    info: { userAgents },
    journal: { onChange: (l: (s: Submission) => void) => (journalListeners.add(l), () => journalListeners.delete(l)) },
    pool: { onReconnect: (l: () => void) => (reconnectListeners.add(l), () => reconnectListeners.delete(l)) },
  } as unknown as NetworkSession
  return {
    s,
    userAgents,
    write: (sub: Partial<Submission>) => {
      for (const l of journalListeners)
        l({
          network: 'sandbox',
          channel: 'trade',
          account: OWNER,
          state: 'accepted',
          actionType: 'approveAgent',
          body: '{}',
          ...sub,
        } as Submission)
    },
    reconnect: () => {
      for (const l of reconnectListeners) l()
    },
    listening: () => journalListeners.size + reconnectListeners.size,
  }
}

function setup() {
  const f = fakeSession()
  let opened: (s: NetworkSession) => void = () => {}
  const events = new EventHub()
  const pushed: AgentSlotsView[] = []
  events.subscribe((e, p) => e === 'state.agents' && pushed.push(p as AgentSlotsView))
  const live = new AgentsLive({
    sessions: { onOpened: (l) => ((opened = l), () => {}) },
    keys: { listAccounts: () => [] },
    events,
    now: () => 1000,
  })
  opened(f.s)
  const counted: string[] = []
  live.onSlots((o) => counted.push(o))
  return { f, live, pushed, counted }
}

describe('agent slots followed by the agents feature', () => {
  it('an agent write that ended: its owner is read once in the background lane, pushed, and the overview told', async () => {
    const { f, pushed, counted } = setup()
    f.write({ account: OWNER.toUpperCase().replace('0X', '0x') })
    await vi.waitFor(() => expect(pushed).toHaveLength(1))
    expect(f.userAgents).toHaveBeenCalledWith({ user: OWNER }, { lane: 'background' })
    expect(pushed[0]!.owner).toBe(OWNER)
    expect(pushed[0]!.slots.find((x) => x.slot === 1)?.agent).toBe(AGENT)
    expect(counted).toEqual([OWNER])
  })

  it('a write still pending, or not an agent write, or on another network reads nothing', async () => {
    const { f, pushed } = setup()
    f.write({ state: 'submitted' as Submission['state'] })
    f.write({ actionType: 'order' })
    f.write({ network: 'mainnet' })
    f.write({ channel: 'earn' as Submission['channel'] })
    await new Promise((r) => setTimeout(r, 0))
    expect(f.userAgents).not.toHaveBeenCalled()
    expect(pushed).toHaveLength(0)
  })

  it('after a reconnect only the owners whose slots were shown are read again', async () => {
    const { f, live, pushed } = setup()
    f.reconnect()
    await new Promise((r) => setTimeout(r, 0))
    expect(f.userAgents).not.toHaveBeenCalled()
    live.shown(OWNER)
    f.reconnect()
    await vi.waitFor(() => expect(pushed).toHaveLength(1))
    expect(f.userAgents).toHaveBeenCalledTimes(1)
  })

  it('its own pushes do not make an owner followed (no self-subscription), and close lets go of the session', async () => {
    const { f, live, pushed } = setup()
    f.write({})
    await vi.waitFor(() => expect(pushed).toHaveLength(1))
    f.reconnect()
    await new Promise((r) => setTimeout(r, 0))
    expect(f.userAgents).toHaveBeenCalledTimes(1)
    live.close()
    expect(f.listening()).toBe(0)
  })

  it('a failed read pushes nothing and tells no one', async () => {
    const { f, pushed, counted } = setup()
    f.userAgents.mockRejectedValueOnce(new Error('unreachable'))
    f.write({})
    await vi.waitFor(() => expect(f.userAgents).toHaveBeenCalledTimes(1))
    await new Promise((r) => setTimeout(r, 0))
    expect(pushed).toHaveLength(0)
    expect(counted).toHaveLength(0)
  })
})
