// @vitest-environment happy-dom
import { createPinia, setActivePinia } from 'pinia'
import { beforeEach, describe, expect, it } from 'vitest'
import type { OverviewView } from '../../../../main/contract/types'
import { installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { useOverviewStore } from './store'

let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  setActivePinia(createPinia())
})

describe('overview store', () => {
  it('a load asked for while one is in flight joins it (the router starts it, the view mounting asks again): one request', async () => {
    let answer: (v: OverviewView) => void = () => {}
    desk.handle('portfolio.overview', () => new Promise<OverviewView>((r) => (answer = r)))
    const s = useOverviewStore()
    const first = s.load()
    const second = s.load()
    expect(desk.callsTo('portfolio.overview')).toHaveLength(1)
    answer({ rows: [], totals: [], totalUsd: '0', asOf: 5 })
    await Promise.all([first, second])
    expect(s.view?.asOf).toBe(5)
    // Once answered, the next load (Refresh) asks again.
    desk.handle('portfolio.overview', () => ({ rows: [], totals: [], totalUsd: '0', asOf: 6 }))
    await s.load()
    expect(desk.callsTo('portfolio.overview')).toHaveLength(2)
    expect(s.view?.asOf).toBe(6)
  })

  it('a failed load is reported and the next one can succeed', async () => {
    desk.fail('portfolio.overview', { code: 'VaultLocked', message: 'locked' })
    const s = useOverviewStore()
    await s.load()
    expect(s.error).toMatchObject({ code: 'VaultLocked' })
    desk.handle('portfolio.overview', () => ({ rows: [], totals: [], totalUsd: '0', asOf: 7 }))
    await s.load()
    expect(s.error).toBeNull()
    expect(s.view?.asOf).toBe(7)
  })
})
