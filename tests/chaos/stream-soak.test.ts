import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../sandbox/index'
import { devBot, devOwner } from '../../sandbox/scenario/dev-keys'
import { StreamPool } from '../../main/core/streams/pool'
import { infoFor, sleep } from '../../main/testing/chaos-harness'

/**
 * Issue 11 item 8.4: a soak of the stream pool against the sandbox's WebSocket while the
 * market maker trades: rounds of dropped event frames, silent sockets (open but mute: no
 * pong, no push) and disconnects, driven through the admin API. After the faults stop, the
 * pool's own recovery (reconnect backfill, gap backfill, the periodic /info sweep; no call
 * from the test) must end with exactly the sandbox's fills: none lost, none twice, none invented.
 */
let sb: SandboxHandle

beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    seed: true,
    blockMs: 20,
    botIntervalMs: 60,
    rateLimits: { infoPerSec: 1000, tradePerSec: 1000, signerPerSec: 1000 },
  })
})
afterAll(async () => {
  await sb?.stop()
})

async function admin(path: string, body: unknown = {}): Promise<unknown> {
  const r = await fetch(`${sb.adminUrl}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!r.ok) throw new Error(`admin ${path}: ${r.status} ${await r.text()}`)
  return r.json()
}

const ROUNDS: { name: string; ms: number; apply: () => Promise<unknown> }[] = [
  { name: 'drop 30%', ms: 1200, apply: () => admin('faults', { ws: { dropProbability: 0.3 } }) },
  { name: 'disconnect', ms: 600, apply: () => admin('ws/disconnect') },
  { name: 'silent', ms: 1500, apply: () => admin('faults', { ws: { dropProbability: 0, silent: true } }) },
  { name: 'drop 60%', ms: 1200, apply: () => admin('faults', { ws: { silent: false, dropProbability: 0.6 } }) },
  { name: 'disconnect while dropping', ms: 800, apply: () => admin('ws/disconnect') },
  { name: 'silent again', ms: 1000, apply: () => admin('faults', { ws: { dropProbability: 0, silent: true } }) },
  { name: 'drop 20%', ms: 1200, apply: () => admin('faults', { ws: { silent: false, dropProbability: 0.2 } }) },
]

describe('chaos: stream soak with drops, silences and disconnects', () => {
  it('ends with exactly the sandbox fills: no loss, no duplicate', { timeout: 90_000 }, async () => {
    const t0 = Date.now()
    const users = [devBot(0).address, devBot(1).address].map((a) => a.toLowerCase() as `0x${string}`)
    const pool = new StreamPool({
      wsUrl: sb.wsUrl,
      info: infoFor(sb),
      backoffBaseMs: 50,
      backoffMaxMs: 500,
      silenceMs: 400,
      pongTimeoutMs: 300,
      gapGraceMs: 100,
      gapMinIntervalMs: 200,
      reconcileIntervalMs: 1000,
      log: () => {},
    })
    pool.setAccounts([
      ...users.map((address) => ({ address, kind: 'balance' as const })),
      { address: devOwner(3).address, kind: 'credit' as const },
    ])
    pool.start()
    try {
      await expect.poll(() => pool.status().connected, { timeout: 10_000 }).toBe(true)
      for (const r of ROUNDS) {
        await r.apply()
        await sleep(r.ms)
      }
      await admin('faults/reset')
      sb.bot?.pause()
      const quietAt = Date.now()
      // What the faults had cost when they stopped (fills the pool did not hold yet).
      const missingAtQuiet = users.reduce((n, u) => n + Math.max(0, sb.trading.recentFills(u, 10_000).length - pool.fills(u).length), 0)
      await sleep(200) // the last blocks seal

      // The pool converges by itself: reconnects, backfills and its periodic sweep.
      const diff = () =>
        users.map((u) => {
          const truth = new Set(sb.trading.recentFills(u, 10_000).map((f) => BigInt(f.tid)))
          const mine = pool.fills(u).map((f) => f.tid)
          const mineSet = new Set(mine)
          return {
            user: u,
            truth: truth.size,
            pool: mine.length,
            lost: [...truth].filter((t) => !mineSet.has(t)).length,
            duplicates: mine.length - mineSet.size,
            invented: [...mineSet].filter((t) => !truth.has(t)).length,
          }
        })
      await expect
        .poll(() => diff().every((d) => d.lost === 0 && d.duplicates === 0 && d.invented === 0), { timeout: 15_000, interval: 100 })
        .toBe(true)
      const converged = Date.now()
      const d = diff()
      const st = pool.status()
      const figures = {
        chaos: 'stream-soak',
        scenario: 'stream-soak',
        rounds: ROUNDS.map((r) => r.name),
        fills: d.reduce((n, x) => n + x.truth, 0),
        lost: d.reduce((n, x) => n + x.lost, 0),
        duplicates: d.reduce((n, x) => n + x.duplicates, 0),
        invented: d.reduce((n, x) => n + x.invented, 0),
        reconnects: st.reconnects,
        missingAtQuiet,
        gapBackfills: st.gapBackfills,
        convergeAfterQuietMs: converged - quietAt,
        wallMs: Date.now() - t0,
      }
      console.log(JSON.stringify(figures))
      expect(figures.fills).toBeGreaterThan(20)
      expect(figures.reconnects).toBeGreaterThanOrEqual(3) // two disconnects and at least one mute socket replaced
      for (const x of d) expect(x.pool).toBe(x.truth)
    } finally {
      await pool.stop()
    }
  })
})
