import { describe, expect, it } from 'vitest'
import { ManualClock } from './clock'
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
    const c = new Coalescer<number[]>(clock, 100, (_t, v) => got.push(v), (a, b) => [...a, ...b])
    c.push('f', [1])
    c.push('f', [2])
    c.push('f', [3])
    clock.advance(100)
    expect(got).toEqual([[1], [2, 3]])
  })
})
