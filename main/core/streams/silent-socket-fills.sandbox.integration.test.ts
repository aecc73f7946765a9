import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { Address } from 'viem'
import { startSandbox, type SandboxHandle } from '../../../sandbox/index'
import { devBot, devKey } from '../../../sandbox/scenario/dev-keys'
import { accepted, actionSender } from '../../../sandbox/scenario/signed-actions'
import { RateScheduler } from '../exchange/scheduler'
import { InfoClient } from '../exchange/info/client'
import type { TradeAction } from '../wire/actions'
import type { SocketLike } from './connection'
import { StreamPool } from './pool'

/**
 * Issue 30 item 6 against the sandbox's silent-socket fault: the socket goes mute (no frame, no
 * close) while an account fills, and speaks again well before the pool's pong deadline; the
 * account then stays quiet. The desk's fills must end with every fill the sandbox recorded.
 */
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

async function faults(ws: Record<string, unknown>): Promise<void> {
  const r = await fetch(`${sb.adminUrl}/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ws }),
  })
  expect(r.status).toBe(200)
}

describe('a fill during a silence that ends before the pool notices', () => {
  it('reaches the desk though the account stays quiet afterwards (sandbox ground truth)', { timeout: 60_000 }, async () => {
    const x = devKey('owner', 300)
    sb.trading.deposit(x.address as Address, 1, 100_000n * 10n ** 8n) // 100 000 USDC (the first deposit pays the activation fee)
    const users = [devBot(0).address, devBot(1).address, x.address].map((a) => a.toLowerCase())
    // When the pool's pings leave (the test ends the silence only after one has crossed it).
    const pings: number[] = []
    const lines: string[] = []
    const pool = new StreamPool({
      wsUrl: sb.wsUrl,
      info: new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) }),
      backoffBaseMs: 50,
      silenceMs: 500,
      // A deadline far beyond the silence: before the fix, the frames after it stood in for the pong.
      pongTimeoutMs: 8_000,
      reconcileIntervalMs: 500,
      log: (l) => lines.push(l),
      createSocket: (url, { maxPayload }) => {
        const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload })
        const send = ws.send.bind(ws) as (data: string, cb?: (err?: Error) => void) => void
        return Object.assign(ws, {
          send: (data: string, cb?: (err?: Error) => void) => {
            if (data.includes('"ping"')) pings.push(Date.now())
            send(data, cb)
          },
        }) as unknown as SocketLike
      },
    })
    pool.setAccounts(users.map((address) => ({ address, kind: 'balance' as const }))) // 9 topics: one socket
    const startedAt = Date.now()
    pool.start()
    try {
      await expect
        .poll(() => pool.status().connected && pool.isLive(x.address, 'spotState', pool.state(x.address).balances?.at ?? Infinity), {
          timeout: 10_000,
        })
        .toBe(true)
      expect(pool.status().connections).toBe(1)

      await faults({ silent: true })
      const silentAt = Date.now()
      const truthOf = (u: string) => sb.trading.recentFills(u as Address, 10_000).filter((f) => f.time >= startedAt)
      const sender = actionSender(sb.trading, x.privateKey, 'x-trader')
      const buy = { type: 'order', market_id: '2', side: 'bid', order_type: 'market', tif: 'ioc', price: '9000', quantity: '0.05' }
      expect(accepted(await sender.send(buy as TradeAction))).toBe(true)
      await expect.poll(() => truthOf(x.address).length, { timeout: 10_000 }).toBeGreaterThan(0)
      // A ping went out during the silence (its pong is lost); give it time to reach the sandbox.
      await expect.poll(() => pings.some((t) => t > silentAt), { timeout: 10_000 }).toBe(true)
      await sleep(500)
      await faults({ silent: false })
      // The bots' frames flow again at once; x trades no more.
      await sleep(500)
      sb.bot?.pause()

      const diff = () =>
        users.map((u) => {
          const mine = pool.fills(u).map((f) => f.tid)
          const mineSet = new Set(mine)
          const all = new Set(sb.trading.recentFills(u as Address, 10_000).map((f) => BigInt(f.tid)))
          return {
            user: u,
            lost: truthOf(u).filter((f) => !mineSet.has(BigInt(f.tid))).length,
            duplicates: mine.length - mineSet.size,
            invented: mine.filter((t) => !all.has(t)).length,
          }
        })
      await expect
        .poll(() => diff().every((d) => d.lost === 0 && d.duplicates === 0 && d.invented === 0), { timeout: 30_000, interval: 100 })
        .toBe(true)
        .catch((e: unknown) => {
          throw new Error(`${JSON.stringify(diff())} ${JSON.stringify(pool.status())} ${lines.slice(-5).join(' | ')}`, { cause: e })
        })
      expect(truthOf(x.address).length).toBeGreaterThan(0)
      // The pool noticed the pong it never got, though frames came before the deadline.
      expect(lines.some((l) => /silent and came back/.test(l))).toBe(true)
    } finally {
      await pool.stop()
    }
  })
})
