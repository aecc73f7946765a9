import { describe, expect, it } from 'vitest'
import { ManualClock } from './testing/manual-clock'
import type { PlanAccount, Subscription } from './plan'
import { nextRefresh, planStrict, type RefreshCandidate } from './strict-plan'

const addr = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}`
const accounts = (n: number, credit: (i: number) => boolean = () => false): PlanAccount[] =>
  Array.from({ length: n }, (_, i) => ({ address: addr(i), kind: credit(i) ? ('credit' as const) : ('balance' as const) }))

describe('planStrict (one connection, 10 subscriptions)', () => {
  it('streams the highest-ranked accounts whole, the next ones balances only, and polls the rest', () => {
    const accts = accounts(30, (i) => i % 5 === 0)
    const ranks = new Map([
      [addr(17), 3], // on screen
      [addr(25), 2], // open orders
      [addr(4), 1], // alert-watched
    ])
    const plan = planStrict(accts, (u) => ranks.get(u) ?? 0, new Set())
    expect(plan.connections).toHaveLength(1)
    expect(plan.connections[0]!.length).toBe(10)
    expect(plan.live).toEqual([addr(17), addr(25), addr(4)])
    // 3 x 3 whole accounts, then the next account's state channel in the room left.
    const streamedUsers = new Set(plan.connections[0]!.map((s) => s.user))
    expect(streamedUsers.size).toBe(4)
    expect(plan.connections[0]!.filter((s) => s.user === addr(0))).toEqual([{ channel: 'spotCreditState', user: addr(0) }])
    // Everything else wanted is polled, each channel exactly once.
    const everything = accts.reduce((n, a) => n + (a.kind === 'credit' ? 3 : 3), 0)
    expect(plan.polled.length + plan.connections[0]!.length).toBe(everything)
    expect(new Set(plan.polled.map((s) => `${s.channel}:${s.user}`)).size).toBe(plan.polled.length)
    expect(plan.note).toMatch(/strict limits: 3 account\(s\) stream on 1 connection/)
  })

  it('keeps live accounts of the same rank (no churn), and lets a higher rank in', () => {
    const accts = accounts(12)
    const first = planStrict(accts, () => 0, new Set([addr(9), addr(10), addr(11)]))
    expect(first.live).toEqual([addr(10), addr(11), addr(9)].sort())
    const ranked = planStrict(accts, (u) => (u === addr(2) ? 3 : 0), new Set(first.live))
    expect(ranked.live[0]).toBe(addr(2))
    expect(ranked.live.slice(1).every((u) => first.live.includes(u))).toBe(true)
  })

  it('never plans more than 10 subscriptions, whatever the mix of account kinds', () => {
    for (let n = 0; n < 40; n++) {
      const accts: PlanAccount[] = Array.from({ length: n }, (_, i) => ({
        address: addr(i),
        kind: (['balance', 'credit', 'unknown'] as const)[i % 3]!,
      }))
      const plan = planStrict(accts, (u) => Number.parseInt(u.slice(-2), 16) % 4, new Set())
      expect(plan.connections.length).toBeLessThanOrEqual(1)
      expect(plan.connections[0]?.length ?? 0).toBeLessThanOrEqual(10)
    }
  })
})

describe('nextRefresh (priority order, oldest first) under a 1 request/s budget', () => {
  /** Runs the refresher for `seconds` at one read per second; returns each channel's worst age seen. */
  function simulate(polled: Subscription[], rankOf: (u: string) => number, seconds: number) {
    const clock = new ManualClock(1_000_000)
    const at = new Map<string, number | null>(polled.map((s) => [`${s.channel}:${s.user}`, null]))
    const worst = new Map<string, number>()
    const reads = new Map<string, number>()
    for (let t = 0; t < seconds; t++) {
      const cands: RefreshCandidate[] = polled.map((sub) => ({ sub, rank: rankOf(sub.user), at: at.get(`${sub.channel}:${sub.user}`)! }))
      const { pick, wakeAt } = nextRefresh(cands, clock.now(), 5000)
      if (pick) {
        const k = `${pick.sub.channel}:${pick.sub.user}`
        at.set(k, clock.now())
        reads.set(k, (reads.get(k) ?? 0) + 1)
      } else expect(wakeAt).not.toBeNull()
      clock.advance(1000)
      for (const [k, v] of at) if (v !== null && t > seconds / 3) worst.set(k, Math.max(worst.get(k) ?? 0, clock.now() - v))
    }
    return { at, worst, reads }
  }

  it('reads every never-read channel first, then keeps every balance within a bounded age; ranked accounts fresher', () => {
    const accts = accounts(27)
    const polled = accts.flatMap((a) => [
      { channel: 'spotState' as const, user: a.address },
      { channel: 'userFills' as const, user: a.address },
      { channel: 'openOrders' as const, user: a.address },
    ])
    const ranked = addr(5)
    const { at, worst, reads } = simulate(polled, (u) => (u === ranked ? 2 : 0), 600)
    expect([...at.values()].every((v) => v !== null)).toBe(true)
    const stateWorst = [...worst].filter(([k]) => k.startsWith('spotState:'))
    // 81 channels at 1 read/s: balances (period 1) get half the reads, so each is read within ~2 x 27 s (59 s measured).
    for (const [, w] of stateWorst) expect(w).toBeLessThanOrEqual(60_000)
    expect(worst.get(`spotState:${ranked}`)).toBeLessThanOrEqual(25_000)
    const rankedReads = reads.get(`spotState:${ranked}`)!
    const plainReads = reads.get(`spotState:${addr(6)}`)!
    expect(rankedReads).toBeGreaterThan(plainReads)
    // fills and orders are never starved either
    for (const [k, w] of worst) if (!k.startsWith('spotState:')) expect(w).toBeLessThanOrEqual(120_000)
  })

  it('reads nothing before a channel is due, and says when the next one will be', () => {
    const sub: Subscription = { channel: 'spotState', user: addr(0) }
    const r = nextRefresh([{ sub, rank: 0, at: 10_000 }], 12_000, 5000)
    expect(r).toEqual({ pick: null, wakeAt: 15_000 })
    const fills: Subscription = { channel: 'userFills', user: addr(0) }
    expect(nextRefresh([{ sub: fills, rank: 0, at: 10_000 }], 12_000, 5000).wakeAt).toBe(20_000)
    expect(nextRefresh([{ sub, rank: 0, at: 10_000 }], 15_000, 5000).pick?.sub).toEqual(sub)
  })
})
