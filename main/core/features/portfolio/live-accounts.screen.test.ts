import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AccountDetailView } from '../../../contract/types'
import { EventHub } from '../../ipc/events'
import type { Submission } from '../../journal'
import type { NetworkSession } from '../../session'
import type { StateUpdate } from '../../streams/live-state'
import type { PrioritySignal } from '../../streams/strict-plan'
import type { AccountDirectory } from '../accounts'
import { ScreenLeases, LEASE_TTL_MS } from '../screen'
import { LiveAccounts } from './live-accounts'

const A = '0x' + 'aa'.repeat(20)
const B = '0x' + 'bb'.repeat(20)
const C = '0x' + 'cc'.repeat(20)

/** A session whose pool records the strict priorities and lets the test move an account's stream. */
function fakeSession() {
  const priority = new Map<PrioritySignal, string[]>()
  const journalListeners = new Set<(sub: Submission) => void>()
  const streamListeners = new Set<(u: StateUpdate) => void>()
  const session = {
    name: 'sandbox',
    pool: {
      setPriority: (sig: PrioritySignal, users: readonly string[]) => priority.set(sig, [...users].sort()),
      subscribe: (l: (u: StateUpdate) => void) => {
        streamListeners.add(l)
        return () => streamListeners.delete(l)
      },
    },
    journal: {
      onChange: (l: (sub: Submission) => void) => {
        journalListeners.add(l)
        return () => journalListeners.delete(l)
      },
    },
  } as unknown as NetworkSession
  const moved = (user: string) => {
    for (const l of streamListeners) l({ user } as StateUpdate)
  }
  const wrote = (account: string) => {
    const sub = {
      network: 'sandbox',
      account,
      body: '{}',
      state: 'submitted',
      channel: 'trade',
      actionType: 'order',
    } as unknown as Submission
    for (const l of journalListeners) l(sub)
  }
  return { session, priority, moved, wrote }
}

function page(address: string): AccountDetailView {
  return { account: { address } as AccountDetailView['account'], balances: [], credit: null, openOrders: [], fills: [], fetchedAt: 0 }
}

describe('live account pages follow screen leases', () => {
  let t = 0
  let live: LiveAccounts
  let leases: ScreenLeases
  let pushed: string[]
  let s: ReturnType<typeof fakeSession>

  beforeEach(() => {
    vi.useFakeTimers()
    t = 1_000_000
    const events = new EventHub()
    pushed = []
    events.subscribe((name, payload) => {
      if (name === 'state.account') pushed.push((payload as AccountDetailView).account.address)
    })
    leases = new ScreenLeases({ now: () => t })
    live = new LiveAccounts({
      accounts: { ref: () => undefined, refs: () => [] } as unknown as AccountDirectory,
      events,
      now: () => t,
      overviewSoon: () => {},
      heartbeatMs: 5000,
      settings: undefined as never,
      pendingJournal: () => 0,
    })
    // The page itself is built elsewhere (portfolio service); here only who is pushed, and when.
    vi.spyOn(live, 'detail').mockImplementation(async (_s, ref) => page(ref.address.toLowerCase()))
    s = fakeSession()
    live.attach(s.session)
    live.followScreen(leases)
  })
  afterEach(() => {
    live.close()
    leases.close()
    vi.useRealTimers()
  })

  const settle = async (ms = 60) => {
    await vi.advanceTimersByTimeAsync(ms)
  }

  it('a leased account page gets priority screen, is pushed at once, on every stream move and every few seconds', async () => {
    leases.watch('web:1', { kind: 'account', address: A })
    expect(s.priority.get('screen')).toEqual([A])
    await settle()
    expect(pushed).toEqual([A])
    s.moved(A)
    s.moved(B) // not leased, never read: not pushed
    await settle()
    expect(pushed).toEqual([A, A])
    pushed.length = 0
    await settle(5000)
    expect(pushed).toEqual([A])
  })

  it('releasing stops the pushes and gives the priority back', async () => {
    const { leaseId } = leases.watch('web:1', { kind: 'account', address: A })
    await settle()
    leases.release('web:1', leaseId)
    expect(s.priority.get('screen')).toEqual([])
    pushed.length = 0
    s.moved(A)
    await settle(15_000)
    expect(pushed).toEqual([])
  })

  it('overview rows stream at the lower priority `overview`; a page open on one of them is `screen`', async () => {
    leases.watch('web:1', { kind: 'overview', addresses: [A, B, C] })
    leases.watch('web:1', { kind: 'account', address: B })
    expect(s.priority.get('overview')).toEqual([A, B, C])
    expect(s.priority.get('screen')).toEqual([B])
  })

  it('a sender that goes away drops every page and row it held', async () => {
    leases.watch('web:1', { kind: 'overview', addresses: [A, B] })
    leases.watch('web:1', { kind: 'account', address: A })
    leases.watch('web:2', { kind: 'account', address: C })
    leases.senderGone('web:1')
    expect(s.priority.get('screen')).toEqual([C])
    expect(s.priority.get('overview')).toEqual([])
  })

  it('a lease not renewed lapses: its page leaves the live set and is no longer pushed', async () => {
    leases.watch('web:1', { kind: 'account', address: A })
    await settle()
    t += LEASE_TTL_MS
    await settle(LEASE_TTL_MS)
    expect(s.priority.get('screen')).toEqual([])
    pushed.length = 0
    s.moved(A)
    await settle(10_000)
    expect(pushed).toEqual([])
  })

  it('an account a write touches, with no lease, is followed for a minute only and never takes the screen priority', async () => {
    s.wrote(A)
    await settle()
    expect(pushed).toEqual([A])
    expect(s.priority.get('screen')).toEqual([])
    s.moved(A)
    await settle()
    expect(pushed).toEqual([A, A])
    t += 60_001
    pushed.length = 0
    s.moved(A)
    await settle(10_000)
    expect(pushed).toEqual([])
  })
})
