/**
 * The read services (market data, last-known state, credit health, portfolio) on a seeded
 * sandbox with a temporary journal: the shared setup of the credit and portfolio integration
 * tests. `useReadServicesSandbox()` starts the sandbox before the file's tests and stops it after.
 */
import { afterAll, beforeAll, expect } from 'vitest'
import type { Address } from 'viem'
import { startSandbox, type SandboxHandle } from '../../sandbox/index'
import { devOwner } from '../../sandbox/scenario/dev-keys'
import { InfoClient } from '../core/exchange/info/client'
import { RateScheduler } from '../core/exchange/scheduler'
import type { Journal } from '../core/journal'
import { openTempJournal } from '../core/journal/testing/temp-journal'
import { LastKnownState } from '../core/session/last-known'
import { MarketDataCache } from '../core/session/market-data'
import { StreamPool } from '../core/streams/pool'
import type { AccountRef } from '../core/features/accounts'
import { CreditHealthService } from '../core/features/credit/credit-health.service'
import { PortfolioService } from '../core/features/portfolio/portfolio.service'

/** The credit warning thresholds the tests use. */
export const TEST_THRESHOLDS = { watchPct: 50, warningPct: 75, criticalPct: 90 }

/** The seeded scenario: owners 3 and 4 are credit accounts, 0 to 2 balance accounts. */
export const SEEDED_REFS: AccountRef[] = [0, 1, 2, 3, 4].map((i) => ({
  address: devOwner(i).address as Address,
  label: `owner ${i}`,
  group: i >= 3 ? 'credit' : 'cash',
  hasKey: true,
}))

/** The sandbox, journal and /info client of a test file (set once its `beforeAll` ran). */
export interface ReadServicesSandbox {
  readonly sb: SandboxHandle
  readonly journal: Journal
  readonly info: InfoClient
  /** Fresh read services over the file's sandbox and journal (a new start shares the journal). */
  services(opts?: { pool?: StreamPool }): {
    lastKnown: LastKnownState
    market: MarketDataCache
    credit: CreditHealthService
    portfolio: PortfolioService
  }
  /** A started stream pool over `SEEDED_REFS`, once `ready` says its first state arrived (the caller stops it). */
  startPool(ready: (pool: StreamPool) => boolean): Promise<StreamPool>
}

/** Registers the file's `beforeAll` (seeded sandbox, /info client, temp journal) and `afterAll`. */
export function useReadServicesSandbox(): ReadServicesSandbox {
  let sb: SandboxHandle
  let journal: Journal
  let info: InfoClient
  beforeAll(async () => {
    sb = await startSandbox({
      seed: true,
      blockMs: 20,
      botIntervalMs: 0,
      rateLimits: { infoPerSec: 1000, tradePerSec: 1000, signerPerSec: 1000 },
    })
    info = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
    journal = openTempJournal()
  })
  afterAll(async () => {
    journal?.close()
    await sb?.stop()
  })
  return {
    get sb() {
      return sb
    },
    get journal() {
      return journal
    },
    get info() {
      return info
    },
    services(opts: { pool?: StreamPool } = {}) {
      const lastKnown = new LastKnownState(journal, 'sandbox')
      const market = new MarketDataCache(info, { ttlMs: 0 })
      const credit = new CreditHealthService({
        info,
        market,
        network: 'sandbox',
        history: journal,
        lastKnown,
        thresholds: () => TEST_THRESHOLDS,
        pool: opts.pool,
        sampleEveryMs: 0,
      })
      const portfolio = new PortfolioService({ info, market, credit, lastKnown, pool: opts.pool })
      return { lastKnown, market, credit, portfolio }
    },
    async startPool(ready) {
      const pool = new StreamPool({ wsUrl: sb.wsUrl, info, reconcileIntervalMs: 0 })
      pool.setAccounts(SEEDED_REFS.map((r, i) => ({ address: r.address, kind: i >= 3 ? ('credit' as const) : ('balance' as const) })))
      pool.start()
      try {
        await expect.poll(() => ready(pool), { timeout: 5000 }).toBe(true)
      } catch (e) {
        await pool.stop()
        throw e
      }
      return pool
    },
  }
}
