import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { startSandbox, type SandboxHandle } from '../../../sandbox/index'
import { devKey, devOwner, type DevKey } from '../../../sandbox/scenario/dev-keys'
import { accepted, actionSender } from '../../../sandbox/scenario/signed-actions'
import { RateScheduler } from '../exchange/scheduler'
import { InfoClient } from '../exchange/info/client'
import type { TradeAction } from '../wire/actions'
import { StreamPool } from './pool'

/**
 * Strict-limits mode against the sandbox enforcing the limits the spec only counts (one
 * connection per IP, 30 new connections a minute) beside the enforced 10 subscriptions.
 * /info runs on its scheduler at 40 requests/s here (the sandbox allows 50) so the test takes
 * seconds; on a real network the same code runs at 1 request/s.
 */
const ACCOUNTS = 32
const INFO_RATE = 40

let sb: SandboxHandle
let pool: StreamPool
const owners: DevKey[] = []
const lines: string[] = []
let sampler: ReturnType<typeof setInterval>
let maxSockets = 0
let maxPoolSubs = 0
let startedAt = 0

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const all = () => [
  ...owners.map((o) => ({ address: o.address, kind: 'balance' as const })),
  { address: devOwner(3).address, kind: 'credit' as const },
  { address: devOwner(4).address, kind: 'credit' as const },
]

beforeAll(async () => {
  sb = await startSandbox({
    seed: true,
    blockMs: 20,
    botIntervalMs: 100,
    rateLimits: { infoPerSec: INFO_RATE + 10, tradePerSec: 1000, signerPerSec: 1000 },
  })
  // The fault is switched on the way an operator would: through the admin route.
  const r = await fetch(`${sb.adminUrl}/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ws: { enforceConnectionLimits: true } }),
  })
  expect(r.status).toBe(200)
  expect(sb.ws.faults.enforceConnectionLimits).toBe(true)
  for (let i = 0; i < ACCOUNTS; i++) {
    const k = devKey('owner', 100 + i)
    sb.trading.deposit(k.address as Address, 1, 100_000n * 10n ** 8n) // 100 000 USDC (the first deposit pays the activation fee)
    owners.push(k)
  }
  const info = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: INFO_RATE }) })
  pool = new StreamPool({
    wsUrl: sb.wsUrl,
    info,
    strict: true,
    pollMinAgeMs: 300,
    backoffBaseMs: 50,
    reconcileIntervalMs: 0,
    log: (l) => lines.push(l),
  })
  pool.setAccounts(all())
  pool.setPriority('screen', [owners[0]!.address, owners[1]!.address])
  sampler = setInterval(() => {
    maxSockets = Math.max(maxSockets, sb.ws.connectionCount())
    maxPoolSubs = Math.max(maxPoolSubs, pool.status().subscriptions)
  }, 5)
  startedAt = Date.now()
  pool.start()
}, 30_000)

afterAll(async () => {
  clearInterval(sampler)
  await pool?.stop()
  await sb?.stop()
})

/** What every test ends on: never over the limits, never refused, never the limit error. */
function limitsKept(): void {
  const st = sb.ws.limitStats()
  expect(st.refused).toEqual({ tooMany: 0, tooManyNew: 0 })
  expect(st.maxOpenPerIp).toBe(1)
  expect(st.maxSubscriptions).toBeLessThanOrEqual(10)
  for (const n of Object.values(st.newConnectionsLastMinute)) expect(n).toBeLessThanOrEqual(30)
  expect(maxSockets).toBeLessThanOrEqual(1)
  expect(maxPoolSubs).toBeLessThanOrEqual(10)
  expect(lines.filter((l) => /Too many|Rate ?limited/i.test(l))).toEqual([])
}

function balanceAt(address: string, kind: 'balance' | 'credit'): number | null {
  const st = pool.state(address)
  const v = kind === 'credit' ? st.credit : st.balances
  if (v === null) return null
  return pool.isLive(address, kind === 'credit' ? 'spotCreditState' : 'spotState', v.at) ? Date.now() : v.at
}

describe(`strict limits against the sandbox enforcing them, ${ACCOUNTS + 2} accounts`, () => {
  it('one socket, at most 10 subscriptions; every balance refreshed with a bounded age; the accounts on screen stay live', async () => {
    await expect.poll(() => pool.status().connected, { timeout: 5000 }).toBe(true)
    // Every account's balances (credit state for the credit accounts) arrive.
    await expect.poll(() => all().filter((a) => balanceAt(a.address, a.kind) === null).length, { timeout: 20_000, interval: 50 }).toBe(0)
    const status = pool.status()
    expect(status).toMatchObject({ strict: true, connections: 1 })
    expect(status.subscriptions).toBeLessThanOrEqual(10)
    expect(pool.liveUsers().slice(0, 2).sort()).toEqual([owners[0]!.address, owners[1]!.address].sort())
    // For 3 s: ages stay bounded (the pool's least fresh account says the same), the screen accounts stream.
    let worst = 0
    const until = Date.now() + 3000
    while (Date.now() < until) {
      const now = Date.now()
      for (const a of all()) worst = Math.max(worst, now - balanceAt(a.address, a.kind)!)
      const lf = pool.status().leastFreshAt
      expect(lf).not.toBeNull()
      expect(now - lf!).toBeLessThanOrEqual(10_000)
      for (const o of owners.slice(0, 2)) expect(pool.isLive(o.address, 'spotState', pool.state(o.address).balances!.at)).toBe(true)
      await sleep(100)
    }
    // ~100 polled channels at 40 reads/s, balances first: well within 10 s (about 4 s at 1 read/s per 40 accounts' balances)
    expect(worst).toBeLessThanOrEqual(10_000)
    console.info(
      `strict: ${all().length} accounts, ${pool.liveUsers().length} live, worst balance age ${worst} ms over 3 s at ${INFO_RATE} /info reads/s`,
    )
    limitsKept()
  }, 40_000)

  it('a fill on an account outside the live set is not lost after it rotates in, nor after it rotates out (ground truth vs the pool)', async () => {
    const x = owners[20]!
    expect(pool.liveUsers()).not.toContain(x.address)
    const sender = actionSender(sb.trading, x.privateKey, 'x-trader')
    const buy = (): TradeAction =>
      ({ type: 'order', market_id: '2', side: 'bid', order_type: 'market', tif: 'ioc', price: '9000', quantity: '0.05' }) as TradeAction
    const truth = () => sb.trading.recentFills(x.address as Address, 10_000).filter((f) => f.time >= startedAt - 60_000)
    // 1. while polled: a fill, then straight onto the screen.
    expect(accepted(await sender.send(buy()))).toBe(true)
    await expect.poll(() => truth().length, { timeout: 5000 }).toBeGreaterThan(0)
    pool.setPriority('screen', [owners[0]!.address, owners[1]!.address, x.address])
    expect(pool.liveUsers()).toContain(x.address)
    // 2. while live: a fill through the stream.
    await expect.poll(() => pool.isLive(x.address, 'spotState', pool.state(x.address).balances?.at ?? 0), { timeout: 5000 }).toBe(true)
    expect(accepted(await sender.send(buy()))).toBe(true)
    // 3. off screen again (another account takes its place): a fill while polled.
    await expect.poll(() => truth().length, { timeout: 5000 }).toBeGreaterThanOrEqual(2)
    pool.setPriority('screen', [owners[0]!.address, owners[1]!.address, owners[5]!.address])
    expect(pool.liveUsers()).not.toContain(x.address)
    expect(accepted(await sender.send(buy()))).toBe(true)
    await expect.poll(() => truth().length, { timeout: 5000 }).toBeGreaterThanOrEqual(3)

    const tids = () => new Set(pool.fills(x.address).map((f) => f.tid))
    await expect.poll(() => truth().every((f) => tids().has(BigInt(f.tid))), { timeout: 10_000, interval: 50 }).toBe(true)
    const mine = pool.fills(x.address)
    expect(new Set(mine.map((f) => f.tid)).size).toBe(mine.length) // no duplicate
    const known = new Set(sb.trading.recentFills(x.address as Address, 10_000).map((f) => BigInt(f.tid)))
    for (const f of mine) expect(known.has(f.tid)).toBe(true) // nothing invented
    expect(pool.status().rotations).toBeGreaterThanOrEqual(2)
    limitsKept()
  }, 40_000)

  it('forced drops: reconnects stay within 30 new connections a minute, then wait instead of being refused', async () => {
    await expect.poll(() => pool.status().connected, { timeout: 5000 }).toBe(true)
    let drops = 0
    while (pool.status().newConnectionsLastMinute < 30 && drops < 40) {
      const before = pool.status().reconnects
      expect(sb.ws.disconnectAll()).toBe(1)
      drops++
      await expect
        // Back and acknowledged (the server talked: the backoff starts over, as after any real recovery).
        .poll(() => pool.status().reconnects > before && pool.isLive(owners[0]!.address, 'spotState', pool.time()), {
          timeout: 5000,
          interval: 5,
        })
        .toBe(true)
        .catch((e: unknown) => {
          throw new Error(
            `drop ${drops}: ${JSON.stringify(pool.status())} ${JSON.stringify(sb.ws.limitStats())} ${lines.slice(-5).join(' | ')}`,
            { cause: e },
          )
        })
    }
    expect(pool.status().newConnectionsLastMinute).toBe(30)
    // One drop more: the 31st connection of the minute is not attempted.
    expect(sb.ws.disconnectAll()).toBe(1)
    await sleep(1500)
    const st = pool.status()
    expect(st).toMatchObject({ connected: false, newConnectionsLastMinute: 30 })
    expect(st.detail).toMatch(/30 new connections in the last minute: the next one waits \d+ s/)
    expect(Object.values(sb.ws.limitStats().newConnectionsLastMinute)).toEqual([30])
    console.info(`strict: ${drops + 1} forced drops; ${st.newConnectionsLastMinute} connections in the minute, then waiting (${st.detail})`)
    limitsKept()
  }, 60_000)
})
