import { describe, expect, it } from 'vitest'
import { LEASE_TTL_MS, ScreenLeases } from './screen-leases'

const A = '0x' + 'aa'.repeat(20)
const B = '0x' + 'bb'.repeat(20)
const C = '0x' + 'cc'.repeat(20)

function leases() {
  let t = 1_000_000
  const l = new ScreenLeases({ now: () => t })
  let changes = 0
  l.onChange(() => changes++)
  return { l, advance: (ms: number) => (t += ms), changes: () => changes }
}

describe('screen leases', () => {
  it('a lease puts its page on screen until it is released; only its sender can release it', () => {
    const { l, changes } = leases()
    const lease = l.watch('web:1', { kind: 'account', address: A.toUpperCase().replace('0X', '0x') })
    expect(lease).toEqual({ leaseId: expect.stringMatching(/^lease-\d+$/), ttlMs: LEASE_TTL_MS, renewEveryMs: LEASE_TTL_MS / 3 })
    expect(l.accounts()).toEqual([A])
    expect(l.credits()).toEqual([])
    expect(changes()).toBe(1)
    expect(l.release('web:2', lease.leaseId)).toBe(false)
    expect(l.accounts()).toEqual([A])
    expect(l.release('web:1', lease.leaseId)).toBe(true)
    expect(l.accounts()).toEqual([])
    expect(changes()).toBe(2)
    expect(l.release('web:1', lease.leaseId)).toBe(false)
  })

  it('renewing keeps the lease id and changes nothing; a new target replaces the old one', () => {
    const { l, changes } = leases()
    const first = l.watch('electron:1', { kind: 'overview', addresses: [A, B] })
    expect(l.overview().sort()).toEqual([A, B])
    const again = l.watch('electron:1', { kind: 'overview', addresses: [A, B] }, first.leaseId)
    expect(again.leaseId).toBe(first.leaseId)
    expect(changes()).toBe(1)
    l.watch('electron:1', { kind: 'overview', addresses: [C] }, first.leaseId)
    expect(l.overview()).toEqual([C])
    expect(l.size()).toBe(1)
    expect(changes()).toBe(2)
  })

  it("another sender's lease id is not renewed: the caller gets a lease of its own", () => {
    const { l } = leases()
    const theirs = l.watch('web:1', { kind: 'credit', address: A })
    const mine = l.watch('web:2', { kind: 'credit', address: B }, theirs.leaseId)
    expect(mine.leaseId).not.toBe(theirs.leaseId)
    expect(l.credits().sort()).toEqual([A, B])
  })

  it('a sender that goes away loses all its leases at once, and no one else’s', () => {
    const { l } = leases()
    l.watch('web:1', { kind: 'account', address: A })
    l.watch('web:1', { kind: 'credit', address: B })
    l.watch('web:1', { kind: 'overview', addresses: [A, B, C] })
    l.watch('web:2', { kind: 'account', address: C })
    l.senderGone('web:1')
    expect(l.accounts()).toEqual([C])
    expect(l.credits()).toEqual([])
    expect(l.overview()).toEqual([])
    expect(l.size()).toBe(1)
  })

  it('a lease not renewed within its bound lapses; a renewed one holds; a lapsed id renews into a new lease', () => {
    const { l, advance, changes } = leases()
    const kept = l.watch('web:1', { kind: 'account', address: A })
    const left = l.watch('web:1', { kind: 'account', address: B })
    advance(LEASE_TTL_MS - 1)
    l.watch('web:1', { kind: 'account', address: A }, kept.leaseId)
    l.sweep()
    expect(l.accounts().sort()).toEqual([A, B])
    advance(1)
    l.sweep()
    expect(l.accounts()).toEqual([A])
    expect(changes()).toBe(3)
    advance(LEASE_TTL_MS)
    l.sweep()
    expect(l.accounts()).toEqual([])
    const back = l.watch('web:1', { kind: 'account', address: A }, kept.leaseId)
    expect(back.leaseId).not.toBe(kept.leaseId)
    expect(l.accounts()).toEqual([A])
    void left
  })
})
