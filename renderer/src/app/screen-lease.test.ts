// @vitest-environment happy-dom
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { effectScope, nextTick, ref } from 'vue'
import type { ScreenTarget } from '../../../main/contract/types'
import { installFakeDesk, type FakeDesk } from '../testing/fake-desk'
import { useScreenLease } from './screen-lease'

const A = '0x1111111111111111111111111111111111111111' as const
const B = '0x2222222222222222222222222222222222222222' as const

let desk: FakeDesk
let leases = 0
beforeEach(() => {
  vi.useFakeTimers()
  setActivePinia(createPinia())
  desk = installFakeDesk()
  leases = 0
  desk.handle('screen.watch', (a) => ({ leaseId: a.leaseId ?? `lease-${++leases}`, ttlMs: 60_000, renewEveryMs: 20_000 }))
  desk.handle('screen.release', () => ({ released: true }))
})
afterEach(() => vi.useRealTimers())

describe('useScreenLease', () => {
  it('renews its lease at the pace main asks for, and stops renewing once disposed', async () => {
    const scope = effectScope()
    scope.run(() => useScreenLease(() => ({ kind: 'credit', address: A })))
    await vi.advanceTimersByTimeAsync(0)
    expect(desk.callsTo('screen.watch')).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(20_000)
    expect(desk.callsTo('screen.watch')).toEqual([
      { target: { kind: 'credit', address: A } },
      { target: { kind: 'credit', address: A }, leaseId: 'lease-1' },
    ])
    scope.stop()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(desk.callsTo('screen.watch')).toHaveLength(2)
    expect(desk.callsTo('screen.release')).toEqual([{ leaseId: 'lease-1' }])
  })

  it('a target of null gives the lease back; a failed call leaves no lease and the next change tries again', async () => {
    const target = ref<ScreenTarget | null>({ kind: 'overview', addresses: [A, B] })
    const scope = effectScope()
    scope.run(() => useScreenLease(() => target.value))
    await vi.advanceTimersByTimeAsync(0)
    target.value = null
    await nextTick()
    await vi.advanceTimersByTimeAsync(0)
    expect(desk.callsTo('screen.release')).toEqual([{ leaseId: 'lease-1' }])
    desk.fail('screen.watch', { code: 'NotAvailable', message: 'down' })
    target.value = { kind: 'overview', addresses: [A] }
    await nextTick()
    await vi.advanceTimersByTimeAsync(0)
    expect(desk.callsTo('screen.watch')).toHaveLength(2)
    desk.handle('screen.watch', () => ({ leaseId: 'lease-9', ttlMs: 60_000, renewEveryMs: 20_000 }))
    target.value = { kind: 'overview', addresses: [B] }
    await nextTick()
    await vi.advanceTimersByTimeAsync(0)
    expect(desk.callsTo('screen.watch').at(-1)).toEqual({ target: { kind: 'overview', addresses: [B] } })
    scope.stop()
    await vi.advanceTimersByTimeAsync(0)
    expect(desk.callsTo('screen.release')).toEqual([{ leaseId: 'lease-1' }, { leaseId: 'lease-9' }])
  })
})
