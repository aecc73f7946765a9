import { describe, expect, it } from 'vitest'
import { ManualClock } from './testing/manual-clock'
import { Coalescer } from './coalescer'

describe('Coalescer', () => {
  it('delivers the first update at once and merges a burst into one delivery per window', () => {
    const clock = new ManualClock(0)
    const got: [string, number][] = []
    const c = new Coalescer<number>(clock, 250, (t, v) => got.push([t, v]))
    c.push('a', 1)
    for (let i = 2; i <= 50; i++) {
      clock.advance(4)
      c.push('a', i)
    }
    expect(got).toEqual([['a', 1]])
    clock.advance(250)
    expect(got).toEqual([
      ['a', 1],
      ['a', 50],
    ])
    c.push('b', 7)
    expect(got.at(-1)).toEqual(['b', 7])
  })

  it('merges with the given function (fills accumulate)', () => {
    const clock = new ManualClock(0)
    const got: number[][] = []
    const c = new Coalescer<number[]>(
      clock,
      100,
      (_t, v) => got.push(v),
      (a, b) => [...a, ...b],
    )
    c.push('f', [1])
    c.push('f', [2])
    c.push('f', [3])
    clock.advance(100)
    expect(got).toEqual([[1], [2, 3]])
  })
})

describe('Coalescer with a burst allowance', () => {
  it('lets spaced changes through at once and holds only a burst beyond the allowance', () => {
    const clock = new ManualClock(0)
    const got: [number, number][] = []
    const c = new Coalescer<number>(clock, 250, (_t, v) => got.push([clock.now(), v]), undefined, 4)
    // A change every 70 ms: never more than 4 within 250 ms, so each goes out when it comes.
    for (let i = 1; i <= 8; i++) {
      c.push('a', i)
      clock.advance(70)
    }
    expect(got.map(([at, v]) => [at, v])).toEqual(Array.from({ length: 8 }, (_, i) => [i * 70, i + 1]))
    // A burst of 20 within 20 ms: 4 at once... (the window counts the recent ones), the rest merged into one.
    clock.advance(1000)
    got.length = 0
    for (let i = 1; i <= 20; i++) {
      c.push('b', i)
      clock.advance(1)
    }
    expect(got.map(([, v]) => v)).toEqual([1, 2, 3, 4])
    clock.advance(250)
    expect(got.map(([, v]) => v)).toEqual([1, 2, 3, 4, 20])
  })
})

describe('Coalescer edges (fake time)', () => {
  it('a change on a quiet topic is delivered with zero latency, however long the window', () => {
    const clock = new ManualClock(0)
    const got: [number, number][] = []
    const c = new Coalescer<number>(clock, 10_000, (_t, v) => got.push([clock.now(), v]))
    c.push('bal', 1)
    expect(got).toEqual([[0, 1]])
    clock.advance(10_000) // window closed with nothing pending: no extra delivery
    expect(got).toHaveLength(1)
    clock.advance(5_000)
    c.push('bal', 2) // quiet again: leading edge, at once
    expect(got).toEqual([
      [0, 1],
      [15_000, 2],
    ])
  })

  it('a burst after the leading edge goes out once, at the end of the window, with the latest value', () => {
    const clock = new ManualClock(0)
    const got: [number, number][] = []
    const c = new Coalescer<number>(clock, 250, (_t, v) => got.push([clock.now(), v]))
    c.push('bal', 1)
    clock.advance(10)
    c.push('bal', 2)
    clock.advance(100)
    c.push('bal', 3)
    expect(c.hasPending('bal')).toBe(true)
    clock.advance(139)
    expect(got).toEqual([[0, 1]])
    clock.advance(1)
    expect(got).toEqual([
      [0, 1],
      [250, 3],
    ])
    // a change right after the trailing delivery waits for that window to close (at most 250 ms)
    clock.advance(50)
    c.push('bal', 4)
    clock.advance(199)
    expect(got).toHaveLength(2)
    clock.advance(1)
    expect(got.at(-1)).toEqual([500, 4])
  })

  it('topics are independent: one busy topic never delays another', () => {
    const clock = new ManualClock(0)
    const got: string[] = []
    const c = new Coalescer<number>(clock, 250, (t, v) => got.push(`${t}=${v}`))
    c.push('a', 1)
    c.push('a', 2)
    c.push('b', 1)
    expect(got).toEqual(['a=1', 'b=1'])
    c.flushAll()
    expect(got).toEqual(['a=1', 'b=1', 'a=2'])
  })
})
