import { describe, expect, it } from 'vitest'
import { createMarkWalker, markTick, nextMark, prng } from './mark-walk'
import { CHAIN, info } from '../testing/test-kit'
import { createTradingService } from './service'
import { DEFAULT_MARKS } from './defaults'
import type { TradingService } from './types'

function manual(clock: { t: number }): TradingService {
  // blockMs 0: blocks only when the test produces them, on a fake clock
  return createTradingService({ chainId: CHAIN, blockMs: 0, rateLimits: false, now: () => clock.t })
}

function walk(seed: number, steps: number): bigint[][] {
  const clock = { t: 1_700_000_000_000 }
  const s = manual(clock)
  const w = createMarkWalker(s, { seed, intervalMs: 0, now: () => clock.t })
  const out: bigint[][] = []
  for (let i = 0; i < steps; i++) {
    clock.t += 1000
    w.step()
    out.push(s.marks().map((m) => m.usdAtoms))
  }
  return out
}

describe('mark walk', () => {
  it('is deterministic under a seed and differs across seeds', () => {
    expect(walk(42, 200)).toEqual(walk(42, 200))
    expect(walk(42, 200)).not.toEqual(walk(43, 200))
    const r = prng(7)
    expect([r(), r(), r()]).toEqual(
      (() => {
        const q = prng(7)
        return [q(), q(), q()]
      })(),
    )
  })

  it('over three hours of 1 s publications every mark moves, stays in its band, on its tick, fresh', () => {
    const clock = { t: 1_700_000_000_000 }
    const s = manual(clock)
    const w = createMarkWalker(s, { seed: 9, intervalMs: 0, now: () => clock.t })
    const seen = new Map<number, Set<bigint>>()
    for (let i = 0; i < 3 * 3600; i++) {
      clock.t += 1000
      w.step()
      for (const m of s.marks()) {
        const anchor = DEFAULT_MARKS.find((d) => d.assetId === m.assetId)!.usdAtoms
        const tick = markTick(s, m.assetId)
        expect(m.usdAtoms % tick).toBe(0n)
        // default band: ±3 % of the seeded value
        expect(m.usdAtoms >= anchor - (anchor * 300n) / 10_000n && m.usdAtoms <= anchor + (anchor * 300n) / 10_000n).toBe(true)
        expect(m.sourceTsMs).toBe(clock.t)
        let set = seen.get(m.assetId)
        if (!set) seen.set(m.assetId, (set = new Set()))
        if (set.size < 50) set.add(m.usdAtoms)
      }
    }
    expect(seen.size).toBe(4)
    for (const set of seen.values()) expect(set.size).toBeGreaterThan(5)
    expect(w.steps).toBe(3 * 3600)
  })

  it('reverts towards the anchor and clamps to the band (integer math)', () => {
    const anchor = 6_500_000_000_000n
    const tick = 1_000_000n
    const o = { stepBps: 5, bandBps: 300, reversion: 20 }
    const far = anchor + 190_000_000_000n
    // far above: the pull (1/20 of the distance) outweighs the noise, for any draw
    for (const r of [0, 1, 2 ** 31, 2 ** 32 - 1]) expect(nextMark(far, anchor, tick, r, o)).toBeLessThan(far)
    expect(nextMark(anchor * 2n, anchor, tick, 0, o)).toBeLessThanOrEqual(anchor + (anchor * 300n) / 10_000n)
    expect(nextMark(anchor, anchor, tick, 12345, { ...o, stepBps: 0 })).toBe(anchor)
  })

  it('an admin-set mark becomes the new anchor', () => {
    const clock = { t: 1_700_000_000_000 }
    const s = manual(clock)
    const w = createMarkWalker(s, { seed: 1, intervalMs: 0, now: () => clock.t })
    w.step()
    s.setMark(3, 5_000_000_000_000n)
    w.step()
    expect(w.anchors().find((a) => a.assetId === 3)!.usdAtoms).toBe(5_000_000_000_000n)
    const v = s.marks().find((m) => m.assetId === 3)!.usdAtoms
    expect(v > 4_990_000_000_000n && v < 5_010_000_000_000n).toBe(true)
  })
})

describe('oracle staleness', () => {
  it('reports StalePrice only when a mark really is older than 60 s; freeze makes it so, unfreeze recovers', async () => {
    const clock = { t: 1_700_000_000_000 }
    const s = manual(clock)
    const w = createMarkWalker(s, { seed: 3, intervalMs: 0, now: () => clock.t })
    const oracle = async () => (await info(s, { type: 'oracleStatus' })).body.oracle_status
    for (let i = 0; i < 120; i++) {
      clock.t += 1000
      w.step()
      if (i % 10 === 0) s.produceBlock()
    }
    s.produceBlock()
    expect(await oracle()).toEqual({ status: 'available' })

    w.freeze()
    clock.t += 60_000
    w.step() // frozen: publishes nothing
    s.produceBlock()
    expect(await oracle()).toEqual({ status: 'available' })
    clock.t += 1_001
    s.produceBlock()
    expect(await oracle()).toEqual({ status: 'unavailable', reason_code: 'StalePrice' })
    const marks = (await info(s, { type: 'markPrices' })).body.marks
    expect(marks.every((m: { source_ts_ms: number }) => clock.t - m.source_ts_ms > 60_000)).toBe(true)

    w.unfreeze()
    s.produceBlock()
    expect(await oracle()).toEqual({ status: 'available' })
    // a forced outage still wins over fresh marks
    s.faults.oracleUnavailable = 'ProviderError'
    expect(await oracle()).toEqual({ status: 'unavailable', reason_code: 'ProviderError' })
    await s.stop()
  })
})
