import { describe, expect, it } from 'vitest'
import type { InfoClient } from '../../exchange/info/client'
import { LastKnownState } from '../../session/last-known'
import { memoryStateStore as memoryStore } from '../../session/testing/memory-state-store'
import type { MarketData, MarketDataCache } from '../../session/market-data'
import type { StreamPool } from '../../streams/pool'
import type { CreditHealthService } from '../credit'
import { PortfolioService } from './portfolio.service'

const POLLED = '0x' + 'a'.repeat(40)
const NEVER = '0x' + 'b'.repeat(40)
const NOW = 1_800_000_000_000

const md: MarketData = {
  assets: new Map([[1, { assetId: 1, symbol: 'USDC', decimals: 2, creditLtv: 0 }]]),
  marks: new Map([[1, { usdAtoms: 100_000_000n, sourceTsMs: NOW }]]),
  oracle: { status: 'available', reasonCode: null },
  fetchedAt: NOW,
  markStaleAfterMs: 60_000,
}

/** A strict-mode pool: POLLED was refreshed through /info 3 minutes ago, NEVER not yet; nothing streams. */
function strictPool(strict: boolean): StreamPool {
  return {
    strict,
    state: (u: string) => ({
      user: u,
      balances:
        u === POLLED ? { at: NOW - 180_000, value: [{ assetId: 1, coin: 'USDC', total: '12.5', locked: '0', available: null }] } : null,
      credit: null,
      openOrders: null,
    }),
    isLive: () => false,
    usable: (_u: string, _c: string, at: number, maxAgeMs = 30_000) => NOW - at <= maxAgeMs,
  } as unknown as StreamPool
}

function service(strict: boolean, reads: string[]): PortfolioService {
  const store = memoryStore()
  const lastKnown = new LastKnownState(store, 'sandbox', { now: () => NOW })
  lastKnown.save(NEVER, 'balances', [{ assetId: 1, symbol: 'USDC', available: '7', locked: '1', total: '8' }], NOW - 600_000)
  const info = {
    userBalances: async ({ user }: { user: string }) => {
      reads.push(user)
      return [{ asset_id: 1, available: '99', locked: '0' }]
    },
  } as unknown as InfoClient
  return new PortfolioService({
    info,
    market: { recent: async () => md, get: async () => md, peek: () => md } as unknown as MarketDataCache,
    credit: {} as CreditHealthService,
    pool: strictPool(strict),
    lastKnown,
    now: () => NOW,
  })
}

describe('strict limits: the overview shows polled and last-known balances with their age, never waiting for a read', () => {
  it('a polled account shows its last refresh (3 min old), an account not refreshed yet its last known balances; no /info read', async () => {
    const reads: string[] = []
    const svc = service(true, reads)
    const polled = await svc.balances(POLLED, 'background')
    expect(polled).toMatchObject({ fetchedAt: NOW - 180_000, source: 'info' })
    expect(polled.rows[0]).toMatchObject({ total: '12.5', usdValue: '12.5' })
    const never = await svc.balances(NEVER, 'background')
    expect(never).toMatchObject({ fetchedAt: NOW - 600_000, source: 'cache' })
    expect(never.rows[0]).toMatchObject({ available: '7', locked: '1', total: '8', usdValue: '8' })
    expect(reads).toEqual([])
    // A write's own read never takes an old value.
    await svc.balances(POLLED, 'write')
    expect(reads).toEqual([POLLED])
  })

  it('without strict limits, state older than 30 s is read again through /info', async () => {
    const reads: string[] = []
    const svc = service(false, reads)
    expect(await svc.balances(POLLED, 'background')).toMatchObject({ fetchedAt: NOW, source: 'info' })
    expect(await svc.balances(NEVER, 'background')).toMatchObject({ source: 'info' })
    expect(reads).toEqual([POLLED, NEVER])
  })
})
