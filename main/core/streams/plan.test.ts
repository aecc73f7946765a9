import { describe, expect, it } from 'vitest'
import { planSubscriptions, type PlanAccount } from './plan'

const acct = (i: number, kind: PlanAccount['kind'] = 'balance'): PlanAccount => ({ address: `0x${i.toString(16).padStart(40, '0')}`, kind })

describe('planSubscriptions', () => {
  it('uses the fewest connections that fit, at most 10 subscriptions each', () => {
    const p = planSubscriptions([acct(1), acct(2, 'credit')])
    expect(p.connections).toHaveLength(1)
    expect(p.connections[0]!.map((s) => s.channel)).toEqual([
      'spotState',
      'spotCreditState',
      'userFills',
      'userFills',
      'openOrders',
      'openOrders',
    ])
    expect(p.polled).toEqual([])
    expect(p.note).toBeNull()
    const many = planSubscriptions(Array.from({ length: 8 }, (_, i) => acct(i)))
    expect(many.neededConnections).toBe(3)
    expect(many.connections.map((c) => c.length)).toEqual([10, 10, 4])
    expect(many.note).toMatch(/3 connections; the service counts 1 connection per IP/)
  })

  it('covers balances and credit state of every account before fills and orders when capped', () => {
    const accounts = [...Array.from({ length: 6 }, (_, i) => acct(i)), ...Array.from({ length: 3 }, (_, i) => acct(100 + i, 'credit'))]
    const p = planSubscriptions(accounts, { maxConnections: 1 })
    const streamed = p.connections.flat()
    expect(streamed).toHaveLength(10)
    // all 9 state channels first, then one fills channel
    expect(streamed.filter((s) => s.channel === 'spotState')).toHaveLength(6)
    expect(streamed.filter((s) => s.channel === 'spotCreditState')).toHaveLength(3)
    expect(streamed[9]!.channel).toBe('userFills')
    expect(p.polled).toHaveLength(9 + 9 - 1)
    expect(p.neededConnections).toBe(3)
    expect(p.note).toMatch(/17 account channel\(s\) do not fit in 1 connection\(s\).*3 connection\(s\) would stream everything/)
  })

  it('an account of unknown kind gets both state channels; duplicates are planned once', () => {
    const p = planSubscriptions([acct(1, 'unknown'), acct(1, 'unknown')])
    expect(p.connections.flat().map((s) => s.channel)).toEqual(['spotState', 'spotCreditState', 'userFills', 'openOrders'])
  })

  it('with no sockets allowed, everything is polled', () => {
    const p = planSubscriptions([acct(1)], { maxConnections: 0 })
    expect(p.connections).toEqual([])
    expect(p.polled).toHaveLength(3)
  })

  it('a re-plan keeps every topic still streamed on the socket it was on', () => {
    // 20 accounts of unknown kind at first (4 channels each), then their kinds are learnt.
    const unknown = Array.from({ length: 20 }, (_, i) => acct(i, 'unknown'))
    const first = planSubscriptions(unknown)
    expect(first.connections).toHaveLength(8)
    const known = unknown.map((a, i) => ({ ...a, kind: (i % 5 === 0 ? 'credit' : 'balance') as PlanAccount['kind'] }))
    const second = planSubscriptions(known, { previous: first })
    expect(second.connections).toHaveLength(6)
    const where = (p: typeof first) => new Map(p.connections.flatMap((subs, i) => subs.map((s) => [`${s.channel}:${s.user}`, i] as const)))
    const before = where(first)
    let moved = 0
    for (const [k, i] of where(second)) if (before.get(k) !== i) moved++
    // only topics of the two sockets that closed move (at most 20), never the rest
    expect(moved).toBeLessThanOrEqual(20)
    expect(second.connections.every((c) => c.length <= 10)).toBe(true)
    expect(second.connections.flat()).toHaveLength(60)
    // an unchanged account list re-plans to the very same sockets
    expect(planSubscriptions(known, { previous: second }).connections).toEqual(second.connections)
  })
})
