// @vitest-environment happy-dom
import { createPinia, setActivePinia } from 'pinia'
import { beforeEach, describe, expect, it } from 'vitest'
import type { OverviewView } from '../../../../main/contract/types'
import { useOverviewStore } from '../../features/overview'
import { useSessionStore } from '../../features/session'
import { flush, installFakeDesk, type FakeDesk } from '../../testing/fake-desk'
import { appState } from '../../testing/fixtures'
import { opensOnOverview, startEarlyCalls, takeEarly } from './early'

const view = (asOf: number): OverviewView => ({ rows: [], totals: [], totalUsd: '0', asOf }) as unknown as OverviewView

let desk: FakeDesk
beforeEach(() => {
  desk = installFakeDesk()
  setActivePinia(createPinia())
})

describe("the page's first calls (sent before the app's bundle runs)", () => {
  it('asks for the app state and, the vault unlocked, the overview; the stores take those answers once, later loads ask again', async () => {
    desk.handle('app.state', () => appState())
    desk.handle('portfolio.overview', () => view(5))
    startEarlyCalls(desk, true)
    await flush()
    expect(desk.calls.map((c) => c.channel)).toEqual(['app.state', 'portfolio.overview'])

    const session = useSessionStore()
    const overview = useOverviewStore()
    await session.load()
    await overview.load()
    expect(session.unlocked).toBe(true)
    expect(overview.view?.asOf).toBe(5)
    expect(desk.calls).toHaveLength(2) // both answers taken, nothing asked twice

    desk.handle('portfolio.overview', () => view(6))
    await session.load()
    await overview.load() // Refresh: a new request
    expect(desk.callsTo('app.state')).toHaveLength(2)
    expect(desk.callsTo('portfolio.overview')).toHaveLength(2)
    expect(overview.view?.asOf).toBe(6)
  })

  it('never asks a locked vault for the overview: the store asks itself after the unlock', async () => {
    desk.handle('app.state', () => appState({ vault: { exists: true, unlocked: false } as never }))
    startEarlyCalls(desk, true)
    await flush()
    expect(desk.callsTo('portfolio.overview')).toHaveLength(0)
    expect(await takeEarly('portfolio.overview')).toBeNull() // asked for nothing: the vault was locked

    desk.handle('portfolio.overview', () => view(9))
    await useOverviewStore().load()
    expect(desk.callsTo('portfolio.overview')).toHaveLength(1)
    expect(useOverviewStore().view?.asOf).toBe(9)
  })

  it('a page opening on another screen asks only for the app state', async () => {
    desk.handle('app.state', () => appState())
    desk.handle('portfolio.overview', () => view(1))
    startEarlyCalls(desk, opensOnOverview('#/journal'))
    await flush()
    expect(desk.calls.map((c) => c.channel)).toEqual(['app.state'])
  })

  it("a refused first call is the store's error, as its own call's would be", async () => {
    desk.fail('app.state', { code: 'HostDisconnected', message: 'refused' })
    startEarlyCalls(desk, true)
    const session = useSessionStore()
    await session.load()
    expect(session.loadError).toMatchObject({ code: 'HostDisconnected' })
    expect(desk.callsTo('portfolio.overview')).toHaveLength(0)
  })

  it('knows which fragments open on the overview', () => {
    for (const h of ['', '#', '#/', '#/overview', '#/overview?x=1', '#token=abc']) expect(opensOnOverview(h), h).toBe(true)
    for (const h of ['#/journal', '#/overviews', '#/account/0x1', '#/unlock?next=/overview']) expect(opensOnOverview(h), h).toBe(false)
  })
})
