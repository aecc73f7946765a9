import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keccak256, stringToHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startSandbox, type SandboxHandle } from '../index'
import { DEV_OWNERS, devAgent, devBot, devOwner } from './dev-keys'
import { DEFAULT_SCENARIO, ScenarioSchema, loadScenarioFile } from './scenario'
import { mkdtemp, writeFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as v from 'valibot'

let sb: SandboxHandle
const info = async (body: unknown) =>
  (await fetch(`${sb.tradingUrl}/info`, { method: 'POST', body: JSON.stringify(body) })).json() as Promise<any>

beforeAll(async () => {
  // bot runs on manual cycles here (huge interval), so the test drives it
  sb = await startSandbox({ seed: true, blockMs: 20, rateLimits: false, botIntervalMs: 3_600_000 })
})
afterAll(async () => {
  await sb?.stop()
})

describe('dev keys', () => {
  it('are derived in the open from their label', () => {
    const k = devOwner(0)
    expect(k.privateKey).toBe(keccak256(stringToHex('treasury-desk sandbox owner 0')))
    expect(k.address).toBe(privateKeyToAccount(k.privateKey).address.toLowerCase())
    expect(new Set(DEV_OWNERS.map((o) => o.address)).size).toBe(DEV_OWNERS.length)
  })
})

describe('default scenario', () => {
  it('loads a scenario file and names the bad field of an invalid one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'scenario-'))
    try {
      const good = join(dir, 'good.json')
      await writeFile(good, JSON.stringify(DEFAULT_SCENARIO))
      expect(await loadScenarioFile(good)).toEqual(DEFAULT_SCENARIO)
      const bad = join(dir, 'bad.json')
      await writeFile(
        bad,
        JSON.stringify({ ...DEFAULT_SCENARIO, orders: [{ owner: 0, market_id: '1', side: 'bid', price: '1.5e3', quantity: '1' }] }),
      )
      await expect(loadScenarioFile(bad)).rejects.toThrow(/bad\.json: orders\.0\.price/)
      await expect(loadScenarioFile(join(dir, 'missing.json'))).rejects.toThrow(/missing\.json/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('is a valid scenario file shape', () => {
    expect(v.safeParse(ScenarioSchema, JSON.parse(JSON.stringify(DEFAULT_SCENARIO))).success).toBe(true)
  })

  it('seeds balance accounts, agents and resting orders', async () => {
    const agents = await info({ type: 'userAgents', user: devOwner(0).address })
    const bySlot = new Map(agents.agents.map((a: any) => [a.slot_id, a.agent?.toLowerCase() ?? null]))
    expect(bySlot.get(0)).toBe(devAgent(0).address)
    expect(bySlot.get(2)).toBe(devAgent(1).address)
    expect(bySlot.get(1)).toBeNull()
    const oo = await info({ type: 'openOrders', user: devOwner(0).address, market_id: -1 })
    expect(oo.orders.length).toBe(2)
    expect((await info({ type: 'accountStatus', user: devOwner(5).address })).found).toBe(false)
  })

  it('has one credit account with a long and a short, and one near its limit', async () => {
    const pos = await info({ type: 'spotCreditPositions', user: devOwner(3).address })
    const qty = (pos.positions as any[]).map((p) => BigInt(p.actual_qty))
    expect(qty.some((q) => q > 0n) && qty.some((q) => q < 0n)).toBe(true)
    const near = await info({ type: 'spotCreditAccount', user: devOwner(4).address })
    const avail = BigInt(near.available_usd_atoms)
    const credit = BigInt(near.credit_usd_atoms)
    expect(avail >= 0n).toBe(true)
    expect(avail * 10n < credit).toBe(true) // under 10 % of the line left
  })

  it('has earn balances with one queued and one claimable withdrawal', () => {
    const a0 = sb.earn.account(devOwner(0).address)
    const a1 = sb.earn.account(devOwner(1).address)
    const w0 = a0.balances.find((b) => b.asset_id === 1)!.active_withdrawal!
    const w1 = a1.balances.find((b) => b.asset_id === 1)!.active_withdrawal!
    expect(w0.status).toBe('queued')
    expect(w0.claimable_at_unix_ms!).toBeGreaterThan(Date.now())
    expect(w1.status).toBe('queued')
    expect(w1.claimable_at_unix_ms!).toBeLessThanOrEqual(Date.now())
  })

  it('the market maker keeps both books two-sided and its taker produces fills', async () => {
    const bot = sb.bot!
    expect(bot).not.toBeNull()
    const before = sb.trading.groundTruth().length
    // The taker crosses with probability 1/2 per market and cycle: a few cycles are enough.
    const fills0 = sb.trading.recentFills(devBot(0).address).length
    for (let i = 0; i < 30 && sb.trading.recentFills(devBot(0).address).length === fills0; i++) await bot.cycle()
    expect(sb.trading.recentFills(devBot(0).address).length).toBeGreaterThan(fills0)
    expect(sb.trading.groundTruth().length).toBeGreaterThan(before)
    for (const m of ['1', '2']) {
      const bbo = sb.trading.bbo(m)!
      expect(bbo.bbo[0]).not.toBeNull()
      expect(bbo.bbo[1]).not.toBeNull()
    }
    expect(Object.keys(sb.trading.allMids().mids).sort()).toEqual(['1', '2'])
  })
})
