import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { RateScheduler, type Lane } from '../exchange/scheduler'
import type { AccountBook } from './account-book'
import type { InfoBackfill } from './backfill'
import { realClock } from './clock'
import { InfoPoller } from './info-poller'
import type { Subscription } from './plan'
import type { StreamPoolOptions } from './pool-options'

const T0 = 1_700_000_000_000
const A = '0xaaaa'
const B = '0xbbbb'
const C = '0xcccc'

/**
 * Strict mode's refresher against a real rate scheduler at 1 request/s (fake timers: the clock
 * only moves when the test says): what leaves the budget, in which order and lane.
 */
describe('InfoPoller in strict mode: balances past the bound', () => {
  let scheduler: RateScheduler
  let poller: InfoPoller | undefined
  /** Every request in the order it left the budget. */
  let sent: { lane: Lane; what: string }[]
  /** When each account's balances were last read. */
  let balancesAt: Map<string, number>

  beforeEach(() => {
    vi.useFakeTimers({ now: T0 })
    scheduler = new RateScheduler({ ratePerSec: 1, burst: 1 })
    sent = []
    balancesAt = new Map()
  })
  afterEach(() => {
    poller?.stop()
    poller = undefined
    scheduler.close()
    vi.useRealTimers()
  })

  const read = (lane: Lane, what: string, then?: () => void) =>
    scheduler.run(lane, async () => {
      sent.push({ lane, what })
      then?.()
    })

  function start(polled: Subscription[], opts: Partial<StreamPoolOptions> = {}): void {
    const book = {
      state: (user: string) => ({
        user,
        balances: balancesAt.has(user) ? { value: [], at: balancesAt.get(user)! } : null,
        credit: null,
        openOrders: null,
      }),
      stateChangedAt: () => undefined,
    } as unknown as AccountBook
    const backfill = {
      refresh: async (subs: readonly Subscription[], lane: 'reconcile' | 'overdue' | 'background' = 'background') => {
        for (const s of subs) await read(lane, `${s.channel} ${s.user}`, () => balancesAt.set(s.user, Date.now()))
      },
      fillsCheckedAtFor: () => undefined,
    } as unknown as InfoBackfill
    const options = { wsUrl: 'ws://unused', strict: true, info: {}, ...opts } as StreamPoolOptions
    poller = new InfoPoller(options, realClock, book, backfill, {
      running: () => true,
      polled: () => polled,
      rankOf: () => 0,
      track: (p) => void p.catch(() => {}),
    })
  }

  /** A start's one-off reads, queued first-come-first-served in the background lane. */
  const startupReads = (n: number) => Array.from({ length: n }, (_, i) => read('background', `identity ${i}`))

  it('reads a balance older than the bound before the start-up reads queued ahead of it; the operator still goes first', async () => {
    balancesAt.set(A, T0 - 10_000)
    balancesAt.set(B, T0 - 50_000) // past the 45 s bound
    const queued = startupReads(5)
    start([
      { channel: 'spotState', user: A },
      { channel: 'spotState', user: B },
    ])
    const op = read('operator', 'operator read')
    poller!.schedulePoll(0)
    await vi.advanceTimersByTimeAsync(2_500)
    expect(sent.slice(0, 3)).toEqual([
      { lane: 'background', what: 'identity 0' }, // had the bucket's token before anything else was queued
      { lane: 'operator', what: 'operator read' },
      { lane: 'overdue', what: `spotState ${B}` },
    ])
    await vi.advanceTimersByTimeAsync(10_000)
    await Promise.all([...queued, op])
    // A's balances were not overdue: they waited their turn behind the start-up reads.
    expect(sent.findIndex((s) => s.what === `spotState ${A}`)).toBeGreaterThan(sent.findIndex((s) => s.what === 'identity 4'))
    expect(sent.find((s) => s.what === `spotState ${A}`)?.lane).toBe('background')
  })

  it('never-read balances count as overdue', async () => {
    const queued = startupReads(3)
    start([{ channel: 'spotState', user: C }])
    poller!.schedulePoll(0)
    await vi.advanceTimersByTimeAsync(1_500)
    expect(sent.map((s) => s.what)).toEqual(['identity 0', `spotState ${C}`])
    expect(sent[1]!.lane).toBe('overdue')
    await vi.advanceTimersByTimeAsync(5_000)
    await Promise.all(queued)
  })

  it("a credit account's credit state (its balances) past the bound is overdue too", async () => {
    const queued = startupReads(3)
    start([{ channel: 'spotCreditState', user: C }])
    poller!.schedulePoll(0)
    await vi.advanceTimersByTimeAsync(1_500)
    expect(sent[1]).toEqual({ lane: 'overdue', what: `spotCreditState ${C}` })
    await vi.advanceTimersByTimeAsync(5_000)
    await Promise.all(queued)
  })

  it('with every balance overdue, the background lane keeps a share (overdue reads are rationed)', async () => {
    const users = Array.from({ length: 40 }, (_, i) => `0x${i.toString(16).padStart(4, '0')}`)
    for (const u of users) balancesAt.set(u, T0 - 100_000)
    const queued = startupReads(10)
    start(
      users.map((user) => ({ channel: 'spotState', user })),
      { pollOverdueMs: 45_000, pollOverdueSpacingMs: 1_250 },
    )
    poller!.schedulePoll(0)
    await vi.advanceTimersByTimeAsync(30_000)
    const first30 = sent.slice(0, 30)
    const overdue = first30.filter((s) => s.lane === 'overdue').length
    const startup = first30.filter((s) => s.what.startsWith('identity')).length
    // About four in five go to the overdue balances, the rest to the start-up reads: neither starves.
    expect(overdue).toBeGreaterThanOrEqual(20)
    expect(startup).toBeGreaterThanOrEqual(5)
    // Oldest first: the overdue reads took the accounts in age order (all equal here: each once).
    const overdueUsers = first30.filter((s) => s.lane === 'overdue').map((s) => s.what)
    expect(new Set(overdueUsers).size).toBe(overdueUsers.length)
    await vi.advanceTimersByTimeAsync(60_000)
    await Promise.all(queued)
  })
})
