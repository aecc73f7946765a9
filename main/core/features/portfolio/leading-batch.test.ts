import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { LeadingBatch } from './leading-batch'

describe('LeadingBatch: a lone change goes out at once, only bursts wait', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('runs the first request on the next microtask, gathers a burst into one run at the window end', async () => {
    const runs: { at: number; keys: string[] }[] = []
    const b = new LeadingBatch<string>(
      50,
      (keys) => runs.push({ at: Date.now(), keys }),
      () => Date.now(),
    )
    const t0 = Date.now()
    b.add(['a'])
    b.add(['b']) // same tick: same run
    await Promise.resolve()
    expect(runs).toEqual([{ at: t0, keys: ['a', 'b'] }])
    // a burst inside the window: one run when it closes
    vi.advanceTimersByTime(10)
    b.add(['a'])
    vi.advanceTimersByTime(10)
    b.add(['c'])
    expect(runs).toHaveLength(1)
    vi.advanceTimersByTime(30)
    expect(runs[1]).toEqual({ at: t0 + 50, keys: ['a', 'c'] })
    // quiet again for longer than the window: the next change is not held back
    vi.advanceTimersByTime(200)
    b.add(['d'])
    await Promise.resolve()
    expect(runs[2]).toEqual({ at: t0 + 250, keys: ['d'] })
    b.close()
    b.add(['e'])
    vi.advanceTimersByTime(100)
    await Promise.resolve()
    expect(runs).toHaveLength(3)
  })
})
