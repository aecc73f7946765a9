import { describe, expect, it } from 'vitest'
import type { InfoClient } from '../../exchange/info/client'
import { LastKnownState, type StateStore } from '../../session/last-known'
import { memoryStateStore as memoryStore } from '../../session/testing/memory-state-store'
import type { MarketDataCache } from '../../session/market-data'
import type { CreditHealthService } from '../credit'
import { PortfolioService } from './portfolio.service'

const A = '0x' + 'b'.repeat(40)

function service(store: StateStore, reads: string[]): PortfolioService {
  const info = {
    accountStatus: async ({ user }: { user: string }) => {
      reads.push(user)
      return { found: true, account_type: 'balance', status: 'active', account_index: 7n }
    },
  } as unknown as InfoClient
  return new PortfolioService({
    info,
    market: {} as MarketDataCache,
    credit: {} as CreditHealthService,
    lastKnown: new LastKnownState(store, 'sandbox'),
  })
}

describe('PortfolioService.identity: kind and status from the last run', () => {
  it('a restart answers from the cache at once and re-reads the account once in the background', async () => {
    const store = memoryStore()
    const firstRun: string[] = []
    expect(await service(store, firstRun).identity(A, 'operator')).toEqual({ kind: 'balance', status: 'active', accountIndex: '7' })
    expect(firstRun).toEqual([A])

    const restart: string[] = []
    const svc = service(store, restart)
    const id = await svc.identity(A, 'operator')
    expect(id).toEqual({ kind: 'balance', status: 'active', accountIndex: '7' })
    await new Promise((r) => setTimeout(r, 0))
    expect(restart).toEqual([A]) // the background re-read, not a wait
    await svc.identity(A, 'operator')
    expect(restart).toEqual([A]) // remembered for the session
  })
})
