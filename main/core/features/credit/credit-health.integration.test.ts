/**
 * Credit health against the sandbox: what the credit screen and the desk's status show per
 * credit account (contributions per asset, stale marks, frozen), its kept history, and the
 * stream's figures agreeing with /info's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { startSandbox, type SandboxHandle } from '../../../../sandbox/index'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import { RateScheduler } from '../../exchange/scheduler'
import { InfoClient } from '../../exchange/info/client'
import { type Journal } from '../../journal'
import { openTempJournal } from '../../journal/testing/temp-journal'
import { StreamPool } from '../../streams/pool'
import { MarketDataCache } from '../../session/market-data'
import { LastKnownState } from '../../session/last-known'
import type { AccountRef } from '../accounts'
import { CreditHealthService } from './credit-health.service'

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

const thresholds = { watchPct: 50, warningPct: 75, criticalPct: 90 }
// The seeded scenario: owners 3 and 4 are credit accounts, 0 to 2 balance accounts.
const refs: AccountRef[] = [0, 1, 2, 3, 4].map((i) => ({
  address: devOwner(i).address as Address,
  label: `owner ${i}`,
  group: i >= 3 ? 'credit' : 'cash',
  hasKey: true,
}))

function services(opts: { pool?: StreamPool } = {}) {
  const lastKnown = new LastKnownState(journal, 'sandbox')
  const market = new MarketDataCache(info, { ttlMs: 0 })
  const credit = new CreditHealthService({
    info,
    market,
    network: 'sandbox',
    history: journal,
    lastKnown,
    thresholds: () => thresholds,
    pool: opts.pool,
    sampleEveryMs: 0,
  })
  return { lastKnown, market, credit }
}

describe('credit health against the sandbox', () => {
  it('credit health: contributions per asset, stale marks show last-known, frozen is its own level, history is kept', async () => {
    const { credit } = services()
    const addr = devOwner(3).address
    const h = await credit.health(addr)
    expect(h).not.toBeNull()
    expect(h!.positions.map((p) => p.symbol).sort()).toEqual(['BTC', 'USDC'])
    expect(h!.positions.find((p) => p.symbol === 'BTC')!.contributionUsd).not.toBeNull()
    expect(h!.marksStale).toBe(false)
    expect(h!.availableUsd).not.toBeNull()
    expect(['ok', 'watch', 'warning', 'critical']).toContain(h!.warning)

    sb.trading.faults.staleMarks = true
    const stale = await credit.health(addr)
    expect(stale!.availableUsd).toBeNull()
    expect(stale!.lastKnownAvailableUsd).not.toBeNull()
    expect(stale!.marksStale).toBe(true)
    // says why, in words the operator can act on
    expect(stale!.availableReason).toMatch(/oracle unavailable \(StalePrice\)|mark for \w+ is \d+ s old/)
    sb.trading.faults.staleMarks = false

    sb.trading.freeze(addr as Address)
    expect((await credit.health(addr))!.warning).toBe('frozen')
    sb.trading.unfreeze(addr as Address)

    expect(await credit.health(devOwner(0).address)).toBeNull()
    const hist = credit.history(addr, 0)
    expect(hist.length).toBeGreaterThanOrEqual(3)
    expect(hist.some((s) => s.availableUsd === null)).toBe(true)
  })
  it('credit health from the stream matches /info (available USD computed from positions at mark), with no request', async () => {
    const pool = new StreamPool({ wsUrl: sb.wsUrl, info, reconcileIntervalMs: 0 })
    pool.setAccounts(refs.map((r, i) => ({ address: r.address, kind: i >= 3 ? ('credit' as const) : ('balance' as const) })))
    pool.start()
    try {
      await expect.poll(() => pool.state(devOwner(3).address).credit !== null, { timeout: 5000 }).toBe(true)
      const { credit, market } = services({ pool })
      for (const i of [3, 4]) {
        // Marks walk in this sandbox: compare a pair read under the same marks (retry when one moved between).
        const pair = async () => {
          const viaInfo = await credit.health(devOwner(i).address)
          const md = await market.get()
          return { viaInfo, live: credit.healthLive(devOwner(i).address, md) }
        }
        let { viaInfo, live } = await pair()
        for (let n = 0; n < 20 && live?.availableUsd !== viaInfo?.availableUsd; n++) ({ viaInfo, live } = await pair())
        expect(live).toBeTruthy()
        expect(live!.availableUsd).toBe(viaInfo!.availableUsd)
        expect(live!.creditUsd).toBe(viaInfo!.creditUsd)
        const noAge = (ps: { markAgeMs: number | null }[]) => ps.map((p) => ({ ...p, markAgeMs: null }))
        expect(noAge(live!.positions)).toEqual(noAge(viaInfo!.positions))
        expect(live!.tradingWhitelist).toEqual(viaInfo!.tradingWhitelist)
      }
      // A balance account's credit channel is not streamed: the stream cannot say, so /info is asked.
      expect(credit.healthLive(devOwner(0).address, await market.get())).toBeUndefined()
    } finally {
      await pool.stop()
    }
  })
})
