import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { CreditHealthView } from '../../../contract/types'
import { EventHub } from '../../ipc/events'
import type { NetworkSession, SessionHolder } from '../../session'
import { ScreenLeases } from '../screen'
import { CreditLive } from './credit-live'

const A = '0x' + 'aa'.repeat(20)
const B = '0x' + 'bb'.repeat(20)

describe('credit pages follow screen leases', () => {
  let t = 0
  let live: CreditLive
  let leases: ScreenLeases
  let pushed: string[]
  let screenChanges = 0

  beforeEach(() => {
    vi.useFakeTimers()
    t = 1_000_000
    pushed = []
    screenChanges = 0
    const events = new EventHub()
    events.subscribe((name, payload) => {
      if (name === 'state.credit') pushed.push((payload as CreditHealthView).address)
    })
    const session = { name: 'sandbox', pool: null, journal: { onChange: () => () => {} } } as unknown as NetworkSession
    const sessions = {
      onOpened: (l: (s: NetworkSession) => void) => {
        l(session)
        return () => {}
      },
      current: async () => session,
    } as unknown as SessionHolder
    live = new CreditLive({ sessions, settings: undefined as never, events, now: () => t, heartbeatMs: 5000 })
    // The health itself is computed by the credit service; here only which pages are pushed, and when.
    vi.spyOn(live as unknown as { read: () => unknown }, 'read').mockImplementation(((_s: unknown, user: string) =>
      Promise.resolve({ address: user } as CreditHealthView)) as never)
    leases = new ScreenLeases({ now: () => t })
    live.followScreen(leases)
    live.onScreenChange(() => screenChanges++)
  })
  afterEach(() => {
    live.close()
    leases.close()
    vi.useRealTimers()
  })

  it('a leased credit page is on screen and pushed every few seconds; released, neither', async () => {
    const { leaseId } = leases.watch('web:1', { kind: 'credit', address: A })
    expect(live.onScreen()).toEqual([A])
    expect(screenChanges).toBe(1)
    await vi.advanceTimersByTimeAsync(5100)
    expect(pushed).toEqual([A])
    leases.release('web:1', leaseId)
    expect(live.onScreen()).toEqual([])
    pushed.length = 0
    await vi.advanceTimersByTimeAsync(20_000)
    expect(pushed).toEqual([])
  })

  it('asking for credit health without a lease puts nothing on screen', async () => {
    await live.health(B)
    expect(live.onScreen()).toEqual([])
    expect(screenChanges).toBe(0)
    await vi.advanceTimersByTimeAsync(20_000)
    expect(pushed).toEqual([])
  })
})
