import { describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { devAgent, devOwner } from '../../../../sandbox/scenario/dev-keys'
import { SEEDED_REFS as refs, useReadServicesSandbox } from '../../../testing/read-services-on-sandbox'
import { AgentsReadService } from '../agents/agents-read.service'
import type { AccountRef } from '../accounts'

const rig = useReadServicesSandbox()
const services = rig.services

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
    const slots = await new AgentsReadService(rig.info, dir, lastKnown).slots(owner)
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
    const pool = await rig.startPool((p) => p.state(devOwner(1).address).balances !== null)
    try {
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
    rig.sb.trading.faults.staleMarks = true
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
      rig.sb.trading.faults.staleMarks = false
    }
  })
})
