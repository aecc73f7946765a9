import { describe, expect, it } from 'vitest'
import { planSubscriptions, type PlanAccount } from './plan'

const acct = (i: number, kind: PlanAccount['kind'] = 'balance'): PlanAccount => ({ address: `0x${i.toString(16).padStart(40, '0')}`, kind })

describe('planSubscriptions', () => {
  it('uses the fewest connections that fit, at most 10 subscriptions each', () => {
    const p = planSubscriptions([acct(1), acct(2, 'credit')])
    expect(p.connections).toHaveLength(1)
    expect(p.connections[0]!.map((s) => s.channel)).toEqual(['spotState', 'spotCreditState', 'userFills', 'userFills', 'openOrders', 'openOrders'])
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
})
