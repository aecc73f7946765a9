import { describe, expect, it } from 'vitest'
import { createDispatcher, type HandlerTable } from '../../ipc/dispatch'
import { screenHandlers } from './handlers'
import { ScreenLeases } from './screen-leases'

const A = '0x' + 'aa'.repeat(20)
const addr = (i: number) => '0x' + i.toString(16).padStart(40, '0')

function desk() {
  const leases = new ScreenLeases({ now: () => 0 })
  const dispatch = createDispatcher(screenHandlers({ leases }) as unknown as HandlerTable)
  return { leases, dispatch }
}

describe('screen.watch / screen.release', () => {
  it.each([
    ['no target', {}],
    ['an unknown kind', { target: { kind: 'orders', address: A } }],
    ['an address that is not one', { target: { kind: 'account', address: '0x12' } }],
    ['an overview of 201 accounts', { target: { kind: 'overview', addresses: Array.from({ length: 201 }, (_, i) => addr(i)) } }],
    ['an account target without its address', { target: { kind: 'credit' } }],
    ['a lease id not from screen.watch', { target: { kind: 'account', address: A }, leaseId: '../../x' }],
  ])('refuses %s with a typed InvalidArguments error and takes no lease', async (_name, args) => {
    const { leases, dispatch } = desk()
    const r = await dispatch('screen.watch', args, { host: 'web', sender: 'web:1' })
    expect(r).toMatchObject({ ok: false, error: { code: 'InvalidArguments', details: { channel: 'screen.watch' } } })
    expect(leases.size()).toBe(0)
  })

  it('refuses a release without a lease id (typed), and leaves the leases alone', async () => {
    const { leases, dispatch } = desk()
    await dispatch('screen.watch', { target: { kind: 'account', address: A } }, { host: 'web', sender: 'web:1' })
    for (const args of [{}, { leaseId: 7 }, { leaseId: 'lease-' }]) {
      const r = await dispatch('screen.release', args, { host: 'web', sender: 'web:1' })
      expect(r).toMatchObject({ ok: false, error: { code: 'InvalidArguments' } })
    }
    expect(leases.size()).toBe(1)
  })

  it('leases belong to the calling sender: 200 overview rows are accepted, another window cannot release them', async () => {
    const { leases, dispatch } = desk()
    const rows = Array.from({ length: 200 }, (_, i) => addr(i))
    const r = await dispatch('screen.watch', { target: { kind: 'overview', addresses: rows } }, { host: 'electron', sender: 'electron:1' })
    expect(r.ok).toBe(true)
    const { leaseId } = (r as { value: { leaseId: string } }).value
    expect(leases.overview()).toHaveLength(200)
    expect(await dispatch('screen.release', { leaseId }, { host: 'web', sender: 'web:9' })).toEqual({
      ok: true,
      value: { released: false },
    })
    expect(await dispatch('screen.release', { leaseId }, { host: 'electron', sender: 'electron:1' })).toEqual({
      ok: true,
      value: { released: true },
    })
    expect(leases.size()).toBe(0)
  })
})
