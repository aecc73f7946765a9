import { describe, expect, it } from 'vitest'
import type { InfoClient } from '../../exchange/info/client'
import { LastKnownState, type StateStore } from '../../session/last-known'
import { memoryStateStore as memoryStore } from '../../session/testing/memory-state-store'
import type { MarketDataCache } from '../../session/market-data'
import type { CreditHealthService } from '../credit'
import { IDENTITY_RECHECK_MS, PortfolioService } from './portfolio.service'

const A = '0x' + 'b'.repeat(40)
const T0 = 1_800_000_000_000

function service(
  store: StateStore,
  reads: string[],
  now: () => number,
  answer = () => ({ found: true, status: 'active' }),
): PortfolioService {
  const info = {
    accountStatus: async ({ user }: { user: string }) => {
      reads.push(user)
      const a = answer()
      return a.found
        ? { found: true, account_type: 'balance', status: a.status, account_index: 7n }
        : { found: false, account_type: null, status: null, account_index: null }
    },
  } as unknown as InfoClient
  return new PortfolioService({
    info,
    market: {} as MarketDataCache,
    credit: {} as CreditHealthService,
    lastKnown: new LastKnownState(store, 'sandbox', { now }),
    now,
  })
}

const tick = () => new Promise((r) => setTimeout(r, 0))

describe('PortfolioService.identity: kind and status from the last run', () => {
  it('a restart within the hour answers from the cache and reads nothing; after the hour, one background re-read', async () => {
    const store = memoryStore()
    let now = T0
    const firstRun: string[] = []
    expect(await service(store, firstRun, () => now).identity(A, 'operator')).toEqual({
      kind: 'balance',
      status: 'active',
      accountIndex: '7',
    })
    expect(firstRun).toEqual([A])

    now = T0 + IDENTITY_RECHECK_MS - 1
    const soon: string[] = []
    const svc = service(store, soon, () => now)
    expect(await svc.identity(A, 'operator')).toEqual({ kind: 'balance', status: 'active', accountIndex: '7' })
    await tick()
    expect(soon).toEqual([]) // an identity read 59 minutes ago is not read again at a start

    now = T0 + IDENTITY_RECHECK_MS
    const later: string[] = []
    const svc2 = service(
      store,
      later,
      () => now,
      () => ({ found: true, status: 'frozen' }),
    )
    expect(await svc2.identity(A, 'operator')).toMatchObject({ status: 'active' }) // shown at once, not waited for
    await tick()
    expect(later).toEqual([A]) // the background re-read
    expect(await svc2.identity(A, 'operator')).toMatchObject({ status: 'frozen' })
    expect(later).toEqual([A]) // remembered for the session
  })

  it('an account that does not exist is never waited for: rechecked in the background once a minute when nothing polls it', async () => {
    const store = memoryStore()
    let now = T0
    let found = false
    const reads: string[] = []
    const svc = service(
      store,
      reads,
      () => now,
      () => ({ found, status: 'active' }),
    )
    expect(await svc.identity(A, 'operator')).toMatchObject({ status: 'none' })
    expect(reads).toEqual([A])
    now += 30_000
    await svc.identity(A)
    await tick()
    expect(reads).toEqual([A])
    // A minute on: the answer is the remembered one at once; the re-read runs behind it.
    now += 30_000
    found = true
    let settled = false
    const p = svc.identity(A).then((id) => ((settled = true), id))
    await tick()
    expect(settled).toBe(true)
    expect(await p).toMatchObject({ status: 'none' })
    expect(reads).toEqual([A, A])
    expect(await svc.identity(A)).toMatchObject({ status: 'active', kind: 'balance' })
  })

  it('an account that did not exist in the last run is asked about again at once, in the background, and its listeners told', async () => {
    const store = memoryStore()
    const now = T0
    const first: string[] = []
    expect(
      await service(
        store,
        first,
        () => now,
        () => ({ found: false, status: 'active' }),
      ).identity(A),
    ).toMatchObject({ status: 'none' })
    const restart: string[] = []
    const svc = service(store, restart, () => now + 1000)
    const told: string[] = []
    svc.onIdentityRead((u) => told.push(u))
    expect(await svc.identity(A, 'operator')).toMatchObject({ status: 'none' }) // at once: the row is as old as that answer
    await tick()
    expect(restart).toEqual([A])
    expect(told).toEqual([A])
    expect(await svc.identity(A)).toMatchObject({ status: 'active' })
  })
})
