import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { onDispatch, RateScheduler, type DispatchEvent, type Lane } from './scheduler'
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
      expect(s.stats().queued).toEqual({ write: 0, operator: 3, reconcile: 1, marks: 0, background: 0 })
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
    expect(s.stats().queued).toEqual({ write: 0, operator: 0, reconcile: 0, marks: 0, background: 4 })
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
