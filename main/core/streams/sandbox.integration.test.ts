import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../sandbox/index'
import { devBot, devOwner } from '../../../sandbox/scenario/dev-keys'
import { RateScheduler } from '../exchange/scheduler'
import { InfoClient } from '../exchange/info/client'
import { StreamPool } from './pool'

let sb: SandboxHandle

beforeAll(async () => {
  sb = await startSandbox({
    seed: true,
    blockMs: 20,
    botIntervalMs: 60,
    rateLimits: { infoPerSec: 1000, tradePerSec: 1000, signerPerSec: 1000 },
  })
})
afterAll(async () => {
  await sb?.stop()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('StreamPool against the sandbox', () => {
  it('a dropped connection and dropped frames end with the same fills as the sandbox recorded', async () => {
    const bots = [devBot(0).address, devBot(1).address]
    const info = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
    const pool = new StreamPool({ wsUrl: sb.wsUrl, info, reconcileIntervalMs: 0, backoffBaseMs: 50 })
    pool.setAccounts([
      ...bots.map((address) => ({ address, kind: 'balance' as const })),
      { address: devOwner(3).address, kind: 'credit' as const },
    ])
    const startedAt = Date.now()
    pool.start()
    try {
      await expect.poll(() => pool.status().connected, { timeout: 5000 }).toBe(true)
      sb.ws.faults.dropProbability = 0.4 // event frames lost without a disconnect
      await sleep(800)
      expect(sb.ws.disconnectAll()).toBeGreaterThan(0) // and a dropped connection
      await sleep(800)
      await expect.poll(() => pool.status().connected, { timeout: 5000 }).toBe(true)
      expect(pool.status().reconnects).toBeGreaterThanOrEqual(1)
      sb.bot?.pause()
      await sleep(200) // let the last blocks settle
      sb.ws.faults.dropProbability = 0
      await pool.idle()
      await pool.reconcileFills()

      for (const user of bots) {
        const truth = sb.trading.recentFills(user, 10_000).filter((f) => f.time >= startedAt)
        expect(truth.length).toBeGreaterThan(0)
        const mine = pool.fills(user)
        const mineTids = new Set(mine.map((f) => f.tid))
        expect(mineTids.size).toBe(mine.length) // no duplicates
        for (const f of truth) expect(mineTids.has(BigInt(f.tid))).toBe(true) // nothing lost
        const truthAll = new Set(sb.trading.recentFills(user, 10_000).map((f) => BigInt(f.tid)))
        for (const f of mine) expect(truthAll.has(f.tid)).toBe(true) // nothing invented
      }
      // snapshot channels kept the credit account's state
      expect(pool.state(devOwner(3).address).credit?.value.authorized).toBe(true)
    } finally {
      await pool.stop()
    }
  })
})
