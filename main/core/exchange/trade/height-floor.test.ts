import { describe, expect, it } from 'vitest'
import type { InfoClient } from '../info/client'
import { HeightFloor } from './info-reads'

/** An /info client answering queryStatus with `height`, recording the lane of every read. */
function fakeInfo(height: () => number) {
  const lanes: string[] = []
  const info = {
    call: (_def: unknown, _params: unknown, opts: { lane?: string } = {}) => {
      lanes.push(opts.lane ?? '?')
      return Promise.resolve({ query_height: String(height()), query_time_ms: 0, earliest_retained_height: '1' })
    },
  } as unknown as InfoClient
  return { info, lanes }
}

describe('HeightFloor: a write signs on a known height, read ahead of time', () => {
  it('a height observed recently is the floor at once; past half its age it is refreshed first in the /info budget (write lane), not awaited', async () => {
    let now = 0
    let h = 100
    const { info, lanes } = fakeInfo(() => h)
    const floor = new HeightFloor(info, () => now, 60_000)
    floor.observe(100n)
    now = 10_000
    expect(await floor.get()).toBe(100n)
    expect(lanes).toEqual([])
    // Half the age passed: the known height still answers; one refresh leaves, ahead of every other lane.
    now = 31_000
    h = 140
    expect(await floor.get()).toBe(100n)
    expect(lanes).toEqual(['write'])
    await new Promise((r) => setTimeout(r, 0))
    expect(await floor.get()).toBe(140n)
  })

  it('with no height younger than its limit, the write reads one first in the /info budget (write lane)', async () => {
    let now = 0
    const { info, lanes } = fakeInfo(() => 250)
    const floor = new HeightFloor(info, () => now, 60_000)
    expect(await floor.get()).toBe(250n)
    expect(lanes).toEqual(['write'])
    now = 61_000
    expect(await floor.get()).toBe(250n)
    expect(lanes).toEqual(['write', 'write'])
  })

  it("a start's priming read still waiting in the background lane never holds a write's refresh: the floor is refreshed in the write lane at half its age", async () => {
    let now = 0
    const lanes: string[] = []
    let h = 300
    const info = {
      // The background lane is starved (a busy budget): its read never leaves.
      call: (_def: unknown, _params: unknown, opts: { lane?: string } = {}) => {
        lanes.push(opts.lane ?? '?')
        if (opts.lane === 'background') return new Promise(() => {})
        return Promise.resolve({ query_height: String(h), query_time_ms: 0, earliest_retained_height: '1' })
      },
    } as unknown as InfoClient
    const floor = new HeightFloor(info, () => now, 60_000)
    floor.prime()
    // The first write reads its own floor ahead of the screens (the priming read is not awaited).
    expect(await floor.get()).toBe(300n)
    expect(lanes).toEqual(['background', 'write'])
    now = 31_000
    h = 320
    expect(await floor.get()).toBe(300n)
    expect(lanes).toEqual(['background', 'write', 'write'])
    await new Promise((r) => setTimeout(r, 0))
    // Refreshed: a write past the floor's age limit (counted from the refresh) does not wait for a read.
    now = 80_000
    expect(await floor.get()).toBe(320n)
    expect(lanes).toEqual(['background', 'write', 'write', 'write'])
  })

  it('writes share one floor read in flight: no second read while the first has not answered', async () => {
    const lanes: string[] = []
    let answer: (v: unknown) => void = () => {}
    const info = {
      call: (_def: unknown, _params: unknown, opts: { lane?: string } = {}) => {
        lanes.push(opts.lane ?? '?')
        return new Promise((r) => (answer = r))
      },
    } as unknown as InfoClient
    const floor = new HeightFloor(info, () => 0, 60_000)
    const a = floor.get()
    const b = floor.get()
    answer({ query_height: '77', query_time_ms: 0, earliest_retained_height: '1' })
    expect(await a).toBe(77n)
    expect(await b).toBe(77n)
    expect(lanes).toEqual(['write'])
  })

  it('heights only grow: an older answer observed late does not lower the floor', async () => {
    const { info } = fakeInfo(() => 0)
    const floor = new HeightFloor(info, () => 0, 60_000)
    floor.observe(500n)
    floor.observe(400n)
    expect(await floor.get()).toBe(500n)
  })
})
