import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  HostSchedulers,
  onDispatch,
  RateScheduler,
  TRADE_SOCKET_BOUND_MS,
  type DispatchEvent,
  type Lane,
  type TaskControl,
} from './scheduler'
import { DeskError } from '../errors/desk-error'

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 })
})
afterEach(() => {
  vi.useRealTimers()
})

function recorder() {
  const started: { label: string; at: number }[] = []
  const task = (label: string) => () => {
    started.push({ label, at: Date.now() - 1_000_000 })
    return Promise.resolve(label)
  }
  return { started, task }
}

describe('RateScheduler', () => {
  it('allows one second of allowance at once, then the configured rate', async () => {
    const s = new RateScheduler({ ratePerSec: 1 })
    const { started, task } = recorder()
    const done = [1, 2, 3].map((i) => s.run('background', task(`b${i}`)))
    await vi.advanceTimersByTimeAsync(0)
    expect(started.map((x) => x.label)).toEqual(['b1'])
    await vi.advanceTimersByTimeAsync(999)
    expect(started).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(started.map((x) => x.label)).toEqual(['b1', 'b2'])
    await vi.advanceTimersByTimeAsync(1000)
    expect(await Promise.all(done)).toEqual(['b1', 'b2', 'b3'])
    expect(started.map((x) => x.at)).toEqual([0, 1000, 2000])
  })

  it('a raised budget with a burst starts that many at once', async () => {
    const s = new RateScheduler({ ratePerSec: 5 })
    const { started, task } = recorder()
    for (let i = 0; i < 7; i++) void s.run('background', task(`b${i}`))
    await vi.advanceTimersByTimeAsync(0)
    expect(started).toHaveLength(5)
    await vi.advanceTimersByTimeAsync(200)
    expect(started).toHaveLength(6)
  })

  it('dispatches strictly by lane priority: operator, then reconcile, then background', async () => {
    const s = new RateScheduler({ ratePerSec: 1 })
    const { started, task } = recorder()
    void s.run('background', task('first')) // takes the only token
    const order: [Lane, string][] = [
      ['background', 'bg1'],
      ['reconcile', 'rc1'],
      ['background', 'bg2'],
      ['operator', 'op1'],
      ['reconcile', 'rc2'],
      ['operator', 'op2'],
    ]
    for (const [lane, label] of order) void s.run(lane, task(label))
    await vi.advanceTimersByTimeAsync(6000)
    expect(started.map((x) => x.label)).toEqual(['first', 'op1', 'op2', 'rc1', 'rc2', 'bg1', 'bg2'])
  })

  it("a write's own read goes before every screen's operator read already waiting, and dispatch events say who waited", async () => {
    const s = new RateScheduler({ ratePerSec: 1, name: 'info test' })
    const { started, task } = recorder()
    const seen: DispatchEvent[] = []
    const off = onDispatch((e) => seen.push(e))
    try {
      void s.run('operator', task('screen0'), 'userBalances')
      for (let i = 1; i < 4; i++) void s.run('operator', task(`screen${i}`), 'openOrders')
      void s.run('reconcile', task('rc'), 'txStatusByCloid')
      await vi.advanceTimersByTimeAsync(100)
      void s.run('write', task('write'), 'userAgents')
      await vi.advanceTimersByTimeAsync(1000)
      expect(started.map((x) => x.label)).toEqual(['screen0', 'write'])
      expect(seen.map((e) => [e.lane, e.label])).toEqual([
        ['operator', 'userBalances'],
        ['write', 'userAgents'],
      ])
      expect(seen[1]!.scheduler).toBe('info test')
      expect(seen[1]!.startedAt - seen[1]!.queuedAt).toBe(900)
      expect(s.stats().queued).toEqual({ write: 0, operator: 3, reconcile: 1, marks: 0, overdue: 0, background: 0 })
    } finally {
      off()
    }
  })

  it('an operator task queued late still overtakes waiting background work', async () => {
    const s = new RateScheduler({ ratePerSec: 1 })
    const { started, task } = recorder()
    for (let i = 0; i < 4; i++) void s.run('background', task(`bg${i}`))
    await vi.advanceTimersByTimeAsync(1500)
    void s.run('operator', task('op'))
    await vi.advanceTimersByTimeAsync(500)
    expect(started.map((x) => x.label)).toEqual(['bg0', 'bg1', 'op'])
  })

  it('pauseFor holds every lane for the stated delay, then lets one request go', async () => {
    const s = new RateScheduler({ ratePerSec: 1 })
    const { started, task } = recorder()
    await s.run('operator', task('a'))
    s.pauseFor(2500)
    void s.run('operator', task('b'))
    void s.run('operator', task('c'))
    await vi.advanceTimersByTimeAsync(2499)
    expect(started.map((x) => x.label)).toEqual(['a'])
    await vi.advanceTimersByTimeAsync(1)
    expect(started.map((x) => x.label)).toEqual(['a', 'b'])
    expect(started[1]!.at).toBe(2500)
    await vi.advanceTimersByTimeAsync(1000)
    expect(started.map((x) => x.at)).toEqual([0, 2500, 3500])
  })

  it('a shorter pause never shortens a longer one already in force', async () => {
    const s = new RateScheduler({ ratePerSec: 10 })
    const { started, task } = recorder()
    s.pauseFor(1000)
    s.pauseFor(10)
    void s.run('operator', task('x'))
    await vi.advanceTimersByTimeAsync(999)
    expect(started).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(started).toHaveLength(1)
  })

  it('passes task results and failures through to the caller', async () => {
    const s = new RateScheduler({ ratePerSec: 10 })
    await expect(s.run('operator', () => Promise.resolve(42))).resolves.toBe(42)
    await expect(s.run('operator', () => Promise.reject(new DeskError('X', 'boom')))).rejects.toMatchObject({ code: 'X' })
    await expect(
      s.run('operator', () => {
        throw new Error('sync')
      }),
    ).rejects.toThrow('sync')
  })

  it('close rejects queued tasks with SchedulerClosed and refuses new ones', async () => {
    const s = new RateScheduler({ ratePerSec: 1 })
    await s.run('operator', () => Promise.resolve(1))
    const queued = s.run('background', () => Promise.resolve(2))
    s.close()
    await expect(queued).rejects.toMatchObject({ code: 'SchedulerClosed' })
    await expect(s.run('operator', () => Promise.resolve(3))).rejects.toMatchObject({ code: 'SchedulerClosed' })
  })

  it('rejects an invalid budget or lane with a typed error', async () => {
    expect(() => new RateScheduler({ ratePerSec: 0 })).toThrow(DeskError)
    expect(() => new RateScheduler({ ratePerSec: Number.NaN })).toThrow(DeskError)
    expect(() => new RateScheduler({ ratePerSec: 1, burst: 0.5 })).toThrow(DeskError)
    const s = new RateScheduler({ ratePerSec: 1 })
    await expect(s.run('urgent' as Lane, () => Promise.resolve(1))).rejects.toMatchObject({ code: 'InvalidLane' })
  })

  it('setRate raises the budget for queued work and stats report the queue', async () => {
    const s = new RateScheduler({ ratePerSec: 1 })
    const { started, task } = recorder()
    for (let i = 0; i < 5; i++) void s.run('background', task(`b${i}`))
    await vi.advanceTimersByTimeAsync(0)
    expect(s.stats().queued.background).toBe(4)
    s.setRate(10)
    await vi.advanceTimersByTimeAsync(400)
    expect(started).toHaveLength(5)
    expect(s.stats().queued.background).toBe(0)
  })

  it('uses an injected clock', async () => {
    let t = 0
    const s = new RateScheduler({ ratePerSec: 1, now: () => t })
    const { started, task } = recorder()
    void s.run('operator', task('a'))
    void s.run('operator', task('b'))
    await vi.advanceTimersByTimeAsync(0)
    expect(started).toHaveLength(1)
    t = 1000
    await vi.advanceTimersByTimeAsync(1000)
    expect(started).toHaveLength(2)
  })
})

describe('HostSchedulers', () => {
  it('shares one scheduler per host and API, and applies a raised budget', async () => {
    const { HostSchedulers } = await import('./scheduler')
    const h = new HostSchedulers()
    const a = h.get('http://127.0.0.1:5000/x', 'info', 1)
    expect(h.get('http://127.0.0.1:5000', 'info', 1)).toBe(a)
    expect(h.get('http://127.0.0.1:5000', 'trade', 1)).not.toBe(a)
    expect(h.get('http://127.0.0.1:5001', 'info', 1)).not.toBe(a)
    h.get('http://127.0.0.1:5000', 'info', 5)
    expect(a.stats().ratePerSec).toBe(5)
    expect(() => h.get('not a url', 'info', 1)).toThrow(expect.objectContaining({ code: 'InvalidUrl' }))
    h.closeAll()
    await expect(a.run('operator', () => Promise.resolve(1))).rejects.toMatchObject({ code: 'SchedulerClosed' })
    // Closed for good: a budget asked for afterwards (a pass finishing during close) sends nothing either.
    await expect(h.get('http://127.0.0.1:5000', 'info', 1).run('operator', () => Promise.resolve(1))).rejects.toMatchObject({
      code: 'SchedulerClosed',
    })
    await expect(h.get('http://127.0.0.1:5002', 'earn', 1).run('write', () => Promise.resolve(1))).rejects.toMatchObject({
      code: 'SchedulerClosed',
    })
  })
})

describe('RateScheduler: marks lane and margin', () => {
  it('a marks refresh starts before queued per-account background reads, after reconciliation', async () => {
    const s = new RateScheduler({ ratePerSec: 1 })
    const { started, task } = recorder()
    void s.run('background', task('first'))
    await vi.advanceTimersByTimeAsync(0)
    for (let i = 0; i < 5; i++) void s.run('background', task(`acct${i}`))
    void s.run('marks', task('marks'))
    void s.run('reconcile', task('reconcile'))
    await vi.advanceTimersByTimeAsync(3000)
    expect(started.map((x) => x.label).slice(0, 4)).toEqual(['first', 'reconcile', 'marks', 'acct0'])
    expect(s.stats().queued).toEqual({ write: 0, operator: 0, reconcile: 0, marks: 0, overdue: 0, background: 4 })
  })

  it('a margin delays each request that waited for a token, never one that had a token', async () => {
    const s = new RateScheduler({ ratePerSec: 1, marginMs: 20 })
    const { started, task } = recorder()
    const done = [1, 2, 3].map((i) => s.run('background', task(`b${i}`)))
    await vi.advanceTimersByTimeAsync(5000)
    await Promise.all(done)
    expect(started.map((x) => x.at)).toEqual([0, 1020, 2040])
  })

  it('the margin holds for a request that arrives as the bucket refills: never two sends closer than 1/rate + margin', async () => {
    const s = new RateScheduler({ ratePerSec: 1, marginMs: 20 })
    const { started, task } = recorder()
    const a = s.run('write', task('a'))
    await vi.advanceTimersByTimeAsync(0)
    await a
    // Exactly one second later, the service's own bucket may not have its token yet (the first
    // request may have left the process late): this one waits for the margin too.
    await vi.advanceTimersByTimeAsync(1000)
    const b = s.run('write', task('b'))
    await vi.advanceTimersByTimeAsync(19)
    expect(started.map((x) => x.label)).toEqual(['a'])
    await vi.advanceTimersByTimeAsync(1)
    await b
    expect(started.map((x) => x.at)).toEqual([0, 1020])
  })
})

/**
 * The service's side: its per-IP token bucket (trading-api §8), counted when a request ARRIVES.
 * Requests reach it after a delay the desk does not control (a busy event loop, the network).
 */
function serviceBucket(perSec: number, capacity = perSec) {
  let tokens = capacity
  let at = Date.now()
  const refused: number[] = []
  const admitted: number[] = []
  return {
    refused,
    admitted,
    /** A task for the scheduler: reaches the service `delayMs` after it starts, answered `answerMs` later. */
    request(delayMs: number, answerMs = 5) {
      return () =>
        new Promise<void>((resolve) => {
          setTimeout(() => {
            const t = Date.now()
            tokens = Math.min(capacity, tokens + ((t - at) * perSec) / 1000)
            at = t
            if (tokens >= 1) {
              tokens -= 1
              admitted.push(t)
            } else refused.push(t)
            setTimeout(resolve, answerMs)
          }, delayMs)
        })
    },
  }
}

/** Deterministic PRNG (mulberry32), so a failure replays. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('RateScheduler: the service never sees more than its budget', () => {
  it('a request that reaches the service late does not let the next one arrive inside the same second', async () => {
    const s = new RateScheduler({ ratePerSec: 1, marginMs: 20 })
    const service = serviceBucket(1)
    // The first request leaves on time but reaches the service 300 ms later (a busy machine);
    // the next one goes straight through. Spacing the sends by 1 s + margin is not enough.
    const a = s.run('operator', service.request(300))
    const b = s.run('operator', service.request(0))
    await vi.advanceTimersByTimeAsync(5_000)
    await Promise.all([a, b])
    expect(service.refused).toEqual([])
    expect(service.admitted).toHaveLength(2)
    expect(service.admitted[1]! - service.admitted[0]!).toBeGreaterThanOrEqual(1000)
  })

  it('holds under random delays, every lane, bursts after a pause and a raised budget', async () => {
    for (const [rate, seed] of [
      [1, 1],
      [1, 2],
      [3, 3],
      [5, 4],
    ] as const) {
      const s = new RateScheduler({ ratePerSec: rate, marginMs: 20 })
      const service = serviceBucket(rate)
      const r = prng(seed)
      const lanes: Lane[] = ['write', 'operator', 'reconcile', 'marks', 'background']
      const all: Promise<unknown>[] = []
      for (let round = 0; round < 6; round++) {
        // A burst of work queued at once, each request delayed on its way by 0-400 ms...
        const n = 2 + Math.floor(r() * 8)
        for (let i = 0; i < n; i++)
          all.push(s.run(lanes[Math.floor(r() * lanes.length)]!, service.request(Math.floor(r() * 400), Math.floor(r() * 50))))
        // ...then a pause long enough for the bucket to fill again (or not).
        await vi.advanceTimersByTimeAsync(Math.floor(r() * 6_000))
      }
      await vi.advanceTimersByTimeAsync(120_000)
      await Promise.all(all)
      expect({ rate, seed, refused: service.refused }).toEqual({ rate, seed, refused: [] })
      expect(service.admitted).toHaveLength(all.length)
    }
  })

  it('a burst after a pause goes at once, up to the capacity, when the answers come back', async () => {
    const s = new RateScheduler({ ratePerSec: 5 })
    await vi.advanceTimersByTimeAsync(10_000)
    const { started, task } = recorder()
    // Answered at once: the bucket is as the service's, five at once, then one every 200 ms.
    const burst = Array.from({ length: 7 }, (_, i) => s.run('operator', task(`r${i}`)))
    await vi.advanceTimersByTimeAsync(0)
    expect(started).toHaveLength(5)
    await vi.advanceTimersByTimeAsync(1_000)
    await Promise.all(burst)
    expect(started.map((x) => x.at - 10_000)).toEqual([0, 0, 0, 0, 0, 200, 400])
  })

  it('no more requests in flight than the capacity: the next waits for an answer, however long it takes', async () => {
    const s = new RateScheduler({ ratePerSec: 1 })
    const { started, task } = recorder()
    let answer!: () => void
    const slow = s.run('write', () => task('slow')().then(() => new Promise<void>((r) => (answer = r))))
    const next = s.run('write', task('next'))
    await vi.advanceTimersByTimeAsync(3_000)
    expect(started.map((x) => x.label)).toEqual(['slow'])
    expect(s.stats().inFlight).toBe(1)
    answer()
    await slow
    // The service took the slow one's token at the latest when it answered (at 3 s).
    await vi.advanceTimersByTimeAsync(999)
    expect(started.map((x) => x.label)).toEqual(['slow'])
    await vi.advanceTimersByTimeAsync(1)
    await next
    expect(started.map((x) => x.at)).toEqual([0, 4_000])
  })

  it('with an arrival bound, a call that takes seconds to answer holds the next one only until the bound, then one interval', async () => {
    const s = new RateScheduler({ ratePerSec: 1, arrivalBoundMs: 2_000 })
    const { started, task } = recorder()
    let answer!: () => void
    const slow = s.run('write', () => task('slow')().then(() => new Promise<void>((r) => (answer = r))))
    const next = s.run('write', task('next'))
    await vi.advanceTimersByTimeAsync(2_999)
    expect(started.map((x) => x.label)).toEqual(['slow'])
    await vi.advanceTimersByTimeAsync(1)
    await next
    expect(started.map((x) => x.at)).toEqual([0, 3_000])
    // Its answer later counts nothing twice: the next request after it keeps one interval.
    answer()
    await slow
    const third = s.run('write', task('third'))
    await vi.advanceTimersByTimeAsync(1_000)
    await third
    expect(started.map((x) => x.at)).toEqual([0, 3_000, 4_000])
  })

  it('a RateLimited answer pauses every lane for its delay, counted from the answer; a retry then goes first in its lane', async () => {
    const s = new RateScheduler({ ratePerSec: 1 })
    const { started, task } = recorder()
    // A refused read: its caller pauses the scheduler with the stated delay, then retries.
    const refused = s.run('write', task('refused')).then(() => {
      s.pauseFor(700)
      return s.run('write', task('retry'))
    })
    void s.run('background', task('bg'))
    await vi.advanceTimersByTimeAsync(699)
    expect(started.map((x) => x.label)).toEqual(['refused'])
    await vi.advanceTimersByTimeAsync(1)
    await refused
    expect(started.map((x) => [x.label, x.at])).toEqual([
      ['refused', 0],
      ['retry', 700],
    ])
    await vi.advanceTimersByTimeAsync(1_000)
    expect(started.map((x) => [x.label, x.at])).toEqual([
      ['refused', 0],
      ['retry', 700],
      ['bg', 1_700],
    ])
  })
})

describe('RateScheduler: /trade counts a token from the socket, not from the answer', () => {
  /**
   * A service bucket (one second of allowance) fed by tasks that report their socket: each
   * request spends `deskMs` before its bytes are on the socket (the journal mark, a busy event
   * loop), reaches the service `serviceMs` after that (never more than the socket bound), and is
   * answered `answerMs` after its token (the block). Records what the desk's rule allowed for
   * each start: the previous request's answer or socket + bound, whichever came first, + 1 s.
   */
  function writes(boundMs: number) {
    let tokens = 1
    let at = Date.now()
    const refused: number[] = []
    const admitted: number[] = []
    const starts: number[] = []
    /** When each request became countable as arrived: min(answer, socket + bound). */
    const countable: number[] = []
    return {
      refused,
      admitted,
      starts,
      countable,
      request(deskMs: number, serviceMs: number, answerMs: number) {
        return (control?: TaskControl) =>
          new Promise<void>((resolve) => {
            // (a zero delay runs at once: a timer would add the 1 ms every timer of 0 takes)
            const after = (ms: number, fn: () => void) => (ms > 0 ? void setTimeout(fn, ms) : fn())
            starts.push(Date.now())
            const i = countable.push(Infinity) - 1
            after(deskMs, () => {
              control?.onSocket()
              countable[i] = Date.now() + boundMs
              after(serviceMs, () => {
                const t = Date.now()
                tokens = Math.min(1, tokens + (t - at) / 1000)
                at = t
                if (tokens >= 1) {
                  tokens -= 1
                  admitted.push(t)
                } else refused.push(t)
                after(answerMs, () => {
                  countable[i] = Math.min(countable[i]!, Date.now())
                  resolve()
                })
              })
            })
          })
      },
    }
  }

  it('the next write leaves one second after the previous was on its socket plus the bound, not after its answer', async () => {
    const s = new RateScheduler({ ratePerSec: 1, marginMs: 20, socketBoundMs: 100 })
    const w = writes(100)
    // On its socket 30 ms after it left, token at once, answered after a 400 ms block.
    const a = s.run('operator', w.request(30, 0, 400))
    const b = s.run('operator', w.request(0, 0, 5))
    await vi.advanceTimersByTimeAsync(1_129)
    expect(w.starts.map((x) => x - 1_000_000)).toEqual([0])
    await vi.advanceTimersByTimeAsync(1)
    expect(w.starts.map((x) => x - 1_000_000)).toEqual([0, 1_130])
    await vi.advanceTimersByTimeAsync(1_000)
    await Promise.all([a, b])
    expect(w.refused).toEqual([])
  })

  it('an answer before the bound counts from the answer; a task that never reports its socket keeps counting from its answer', async () => {
    const s = new RateScheduler({ ratePerSec: 1, socketBoundMs: 100 })
    const w = writes(100)
    const fast = s.run('operator', w.request(10, 0, 40))
    const silent = s.run('operator', () => new Promise<void>((r) => setTimeout(r, 400)))
    const last = s.run('operator', w.request(0, 0, 5))
    await vi.advanceTimersByTimeAsync(10_000)
    await Promise.all([fast, silent, last])
    // fast: answered at 50 (before 10 + 100), the silent one at 1050 + 400; the last one second after each.
    expect(w.starts.map((x) => x - 1_000_000)).toEqual([0, 2_450])
  })

  it('never RateLimited and never earlier than allowed, under random delays before the socket, service delays within the bound and slow blocks', async () => {
    for (const seed of [11, 12, 13, 14, 15]) {
      const bound = 100
      const s = new RateScheduler({ ratePerSec: 1, marginMs: 20, socketBoundMs: bound, arrivalBoundMs: 2_000 })
      const w = writes(bound)
      const r = prng(seed)
      const all: Promise<unknown>[] = []
      for (let round = 0; round < 8; round++) {
        const n = 1 + Math.floor(r() * 4)
        for (let i = 0; i < n; i++)
          all.push(s.run('operator', w.request(Math.floor(r() * 300), Math.floor(r() * (bound + 1)), Math.floor(r() * 500))))
        await vi.advanceTimersByTimeAsync(Math.floor(r() * 3_000))
      }
      await vi.advanceTimersByTimeAsync(60_000)
      await Promise.all(all)
      expect({ seed, refused: w.refused }).toEqual({ seed, refused: [] })
      expect(w.admitted).toHaveLength(all.length)
      // No start before the previous request was countable as arrived plus one second (and the margin's refill).
      for (let i = 1; i < w.starts.length; i++) {
        expect(w.starts[i]! - w.countable[i - 1]!).toBeGreaterThanOrEqual(1_000)
        expect(w.starts[i]! - w.starts[i - 1]!).toBeGreaterThanOrEqual(1_020)
      }
    }
  })

  it("the host's /trade budget counts from the socket; its /info budget ignores it and counts from the answer", async () => {
    const hosts = new HostSchedulers()
    const trade = hosts.get('http://127.0.0.1:9/trade', 'trade', 1)
    const info = hosts.get('http://127.0.0.1:9/info', 'info', 1)
    const wt = writes(TRADE_SOCKET_BOUND_MS)
    const wi = writes(TRADE_SOCKET_BOUND_MS)
    const all = [
      trade.run('write', wt.request(0, 0, 500)),
      trade.run('write', wt.request(0, 0, 5)),
      info.run('write', wi.request(0, 0, 500)),
      info.run('write', wi.request(0, 0, 5)),
    ]
    await vi.advanceTimersByTimeAsync(5_000)
    await Promise.all(all)
    expect(wt.starts.map((x) => x - 1_000_000)).toEqual([0, 1_000 + TRADE_SOCKET_BOUND_MS])
    expect(wi.starts.map((x) => x - 1_000_000)).toEqual([0, 1_500])
    hosts.closeAll()
  })
})
