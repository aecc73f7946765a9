import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { startSandbox, type SandboxHandle } from '../../../../sandbox/index'
import { devAgent, devOwner } from '../../../../sandbox/scenario/dev-keys'
import { RateScheduler } from '../../exchange/scheduler'
import { InfoClient } from '../../exchange/info/client'
import { type Journal } from '../../journal'
import { openTempJournal } from '../../journal/testing/temp-journal'
import { StreamPool } from '../../streams/pool'
import { AgentsReadService } from '../agents/agents-read.service'
import { CreditHealthService } from '../credit/credit-health.service'
import { MarketDataCache } from '../../session/market-data'
import type { AccountRef } from '../accounts'
import { PortfolioService } from './portfolio.service'
import { LastKnownState } from '../../session/last-known'

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
  const portfolio = new PortfolioService({ info, market, credit, lastKnown, pool: opts.pool })
  return { lastKnown, market, credit, portfolio }
}

describe('read services against the sandbox', () => {
  it('portfolio: balances at mark per account and in total, credit rows for credit accounts', async () => {
    const { portfolio } = services()
    const o = await portfolio.overview(refs)
    expect(o.rows.map((r) => r.account.kind)).toEqual(['balance', 'balance', 'balance', 'credit', 'credit'])
    const r0 = o.rows[0]!
    expect(r0.account.status).toBe('active')
    const usdc = r0.available.find((b) => b.symbol === 'USDC')!
    // the seeded 250000 USDC less the 1.0 activation fee, minus what the seeded bid locks
    expect(BigInt(usdc.total.split('.')[0]!)).toBeGreaterThan(200_000n)
    expect(usdc.usdValue).not.toBeNull()
    expect(r0.totalUsd).not.toBeNull()
    const btc = r0.available.find((b) => b.symbol === 'BTC')!
    expect(btc.total).toBe('2.5')
    const credit = o.rows[3]!.credit!
    expect(credit.creditUsd).toBe('50000')
    // Credit accounts count in "All assets" and the USD total: their positions are holdings.
    expect(o.rows[3]!.available.find((b) => b.symbol === 'BTC')!.total).toBe('0.3')
    expect(o.rows[3]!.totalUsd).not.toBeNull()
    expect(o.totals.find((t) => t.symbol === 'BTC')!.total).toBe('3.2') // 2.5 + 0.4 held, 0.3 in credit positions
    expect(o.totalUsd).not.toBeNull()
    expect(o.totalUsdAge).toMatchObject({ reason: null })
    expect(o.totalUsdAge!.asOf).toBeGreaterThan(0)
  })

  it('portfolio: one account failing to read keeps every other row, and its row says why', async () => {
    const { portfolio } = services()
    await portfolio.overview(refs) // last-known values for every row
    const broken: AccountRef = { ...refs[1]!, address: refs[1]!.address }
    const real = portfolio.row.bind(portfolio)
    portfolio.row = async (ref, lane) => {
      if (ref.address.toLowerCase() === broken.address.toLowerCase()) throw new Error('/info is rate limited')
      return real(ref, lane)
    }
    const o = await portfolio.overview(refs)
    expect(o.rows).toHaveLength(5)
    const bad = o.rows[1]!
    expect(bad.readError).toMatch(/could not be read: \/info is rate limited/)
    expect(bad.totalUsd).toBeNull()
    expect(bad.totalUsdReason).toMatch(/could not be read/)
    // its last known balances are still shown, stale
    expect(bad.available.length).toBeGreaterThan(0)
    expect(bad.stale).toBe(true)
    for (const i of [0, 2, 3, 4]) expect(o.rows[i]!.readError ?? null).toBeNull()
    expect(o.totalUsd).toBeNull()
    expect(o.totalUsdAge!.reason).toMatch(/owner 1 could not be read/)
  })

  it('agents: four slots with epoch and whether the vault holds the key', async () => {
    const owner = devOwner(0).address as Address
    const agent0 = devAgent(0).address as Address
    const dir = { listAccounts: () => [{ address: owner, agents: [{ slot: 0, address: agent0, createdAt: '2026-01-01T00:00:00.000Z' }] }] }
    const { lastKnown } = services()
    const slots = await new AgentsReadService(info, dir, lastKnown).slots(owner)
    expect(slots.map((s) => s.slot)).toEqual([0, 1, 2, 3])
    expect(slots[0]).toMatchObject({ agent: agent0, keyInVault: true })
    expect(slots[0]!.epoch).toMatch(/^\d+$/)
    expect(slots[2]).toMatchObject({ agent: devAgent(1).address, keyInVault: false })
    expect(slots[1]).toMatchObject({ agent: null, epoch: null, keyInVault: false })
    expect(lastKnown.load(owner, 'agents')!.value).toEqual(slots)
  })

  it('last-known state: a new start shows the cached overview with its age before the network answers', async () => {
    const first = services()
    await first.portfolio.overview(refs)
    const again = services()
    const cached = again.portfolio.cachedOverview(refs)!
    expect(cached.rows).toHaveLength(5)
    expect(cached.rows.every((r) => r.stale && r.fetchedAt !== null)).toBe(true)
    expect(cached.rows[0]!.available.length).toBeGreaterThan(0)
    expect(again.lastKnown.load(devOwner(0).address, 'balances')!.ageMs).toBeGreaterThanOrEqual(0)
  })

  it('uses live socket balances when the pool streams them', async () => {
    const pool = new StreamPool({ wsUrl: sb.wsUrl, info, reconcileIntervalMs: 0 })
    pool.setAccounts(refs.map((r, i) => ({ address: r.address, kind: i >= 3 ? ('credit' as const) : ('balance' as const) })))
    pool.start()
    try {
      await expect.poll(() => pool.state(devOwner(1).address).balances !== null, { timeout: 5000 }).toBe(true)
      const { portfolio } = services({ pool })
      const b = await portfolio.balances(devOwner(1).address)
      expect(b.source).toBe('stream')
      const viaInfo = await services().portfolio.balances(devOwner(1).address)
      expect(b.rows).toEqual(viaInfo.rows)
    } finally {
      await pool.stop()
    }
  })

  it('a total that cannot be computed says why, naming the asset and since when its mark is stale', async () => {
    const { portfolio } = services()
    sb.trading.faults.staleMarks = true
    try {
      const o = await portfolio.overview(refs)
      // The sandbox's fault reports the oracle or the marks as stale: either way the reason names it.
      expect(o.totalUsd).toBeNull()
      expect(o.totalUsdAge!.reason).toMatch(/mark for \w+ stale since \d\d:\d\d:\d\d UTC|oracle unavailable/)
      const btc = o.rows[0]!.available.find((b) => b.symbol === 'BTC')!
      expect(btc.usdValue).toBeNull()
      expect(btc.usdReason).toBeTruthy()
      expect(o.rows[0]!.totalUsdReason).toBeTruthy()
    } finally {
      sb.trading.faults.staleMarks = false
    }
  })
})
