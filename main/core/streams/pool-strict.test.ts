import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { RateScheduler } from '../exchange/scheduler'
import { InfoClient } from '../exchange/info/client'
import { ManualClock } from './testing/manual-clock'
import { StreamPool } from './pool'
import { MockExchange } from './testing/mock-exchange'

const addr = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}`
const T0 = 1_700_000_000_000

let ex: MockExchange
let clock: ManualClock
let pool: StreamPool | undefined

beforeEach(async () => {
  ex = await new MockExchange().listen()
  clock = new ManualClock(T0)
})
afterEach(async () => {
  await pool?.stop()
  pool = undefined
  await ex.close()
})

async function until(cond: () => boolean): Promise<void> {
  const where = new Error().stack?.split('\n')[2]?.trim() ?? ''
  await vi.waitFor(() => expect(cond(), where).toBe(true), { timeout: 5000, interval: 5 })
}

/** Lets the refresher run `n` reads (each waits for its /info answer). */
async function pump(p: StreamPool, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    clock.advance(0)
    await p.idle()
  }
}

const subsOf = (user: string) => [...ex.sockets].flatMap((s) => [...s.subs]).filter((k) => k.endsWith(user))

describe('StreamPool in strict-limits mode', () => {
  /** /info: balances for everyone, one fill and one open order for some accounts. */
  function serve(fills: Map<string, object[]>, orders: Map<string, object[]>): void {
    ex.infoHandler = (b) => {
      const user = String(b.user ?? '').toLowerCase()
      if (b.type === 'userBalances') return { balances: [{ asset_id: 1, available: '5', locked: '0' }] }
      if (b.type === 'openOrders') return { market_id: -1, orders: orders.get(user) ?? [], truncated: false }
      if (b.type === 'userFillsByTime')
        return { fills: (fills.get(user) ?? []).filter((f) => (f as { time: number }).time >= (b.start_time_ms as number)) }
      return {}
    }
    ex.onSubscribe = (ch, user, send) => {
      if (ch === 'spotState') send({ user, balances: [{ coin: 'USDC', token: 1, total: '5', hold: '0' }] })
    }
  }

  function strictPool(n: number): StreamPool {
    const info = new InfoClient({ baseUrl: ex.httpUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
    // (overdue balance reads unrationed: the manual clock stands still while a round is pumped)
    pool = new StreamPool({
      wsUrl: ex.wsUrl,
      info,
      clock,
      random: () => 0.5,
      reconcileIntervalMs: 0,
      strict: true,
      pollOverdueSpacingMs: 0,
    })
    pool.setAccounts(Array.from({ length: n }, (_, i) => ({ address: addr(i), kind: 'balance' as const })))
    return pool
  }

  it('holds one socket of at most 10 subscriptions, refreshes the rest through /info and reports the least fresh account', async () => {
    serve(new Map(), new Map())
    const p = strictPool(12)
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 10)
    expect(ex.sockets.size).toBe(1)
    expect(p.status()).toMatchObject({ strict: true, connections: 1, subscriptions: 10, liveAccounts: 3 })
    // Before any read, the least fresh account was never read.
    expect(p.status().leastFreshAt).toBeNull()
    // Every polled channel is read once (never-read first): 8 balances + 9 x (fills, orders) = 26 reads.
    await pump(p, 30)
    for (let i = 0; i < 12; i++) expect(p.state(addr(i)).balances, addr(i)).not.toBeNull()
    // The streamed ones are current now; the polled ones are dated by their read.
    clock.advance(1000)
    const st = p.status()
    expect(st.leastFreshAt).toBe(T0)
    expect(p.liveUsers()).not.toContain(st.leastFreshUser)
    // Nothing is due again before 5 s: no read in a loop.
    const before = ex.infoRequests.length
    await pump(p, 5)
    expect(ex.infoRequests.length).toBe(before)
    clock.advance(4000)
    await pump(p, 1)
    expect(ex.infoRequests.length).toBeGreaterThan(before)
    expect(ex.subscriptionCounts()).toEqual([10])
  })

  it('rotates an account on screen in, and a fill it made while polled is backfilled by time (deduplicated on tid)', async () => {
    const X = addr(11)
    const fill = (tid: number, time: number) => ({
      tid,
      time,
      side: 'B',
      fee_asset_id: 1,
      fee: '0',
      fee_mode: 'balance',
      coin: '1',
      px: '100',
      sz: '1',
    })
    const fills = new Map([[X, [fill(77, T0 - 1000)]]])
    serve(fills, new Map())
    const p = strictPool(12)
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 10)
    expect(p.liveUsers()).not.toContain(X)
    await pump(p, 30)
    expect(p.fills(X).map((f) => f.tid)).toEqual([77n])
    // A second fill after X's last poll, then X goes on screen.
    fills.get(X)!.push(fill(78, T0 + 10))
    p.setPriority('screen', [X])
    expect(p.liveUsers()[0]).toBe(X)
    await until(() => subsOf(X).length === 3)
    expect(ex.subscriptionCounts()).toEqual([10])
    await p.idle()
    expect(p.fills(X).map((f) => f.tid)).toEqual([77n, 78n])
    expect(p.status().rotations).toBeGreaterThanOrEqual(2) // X in, someone out
    // The last of the live accounts left (the others stay: no churn); it is read through /info from now on.
    const out = addr(2)
    expect(p.liveUsers()).toEqual([X, addr(0), addr(1)])
    // (its balances keep the room left on the socket)
    await until(() => subsOf(out).join() === `spotState:${out}`)
  })

  it('a quiet polled account costs one read per round (its balances); its orders and fills are read again once its balances changed', async () => {
    const Z = addr(10)
    let zTotal = '5'
    serve(new Map(), new Map())
    const base = ex.infoHandler
    ex.infoHandler = (b) =>
      b.type === 'userBalances' && String(b.user).toLowerCase() === Z
        ? { balances: [{ asset_id: 1, available: zTotal, locked: '0' }] }
        : base(b)
    const p = strictPool(12)
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 10)
    await pump(p, 30) // the first round reads every polled channel once
    // (the live accounts' sockets may reconnect as the clock jumps, and their backfill reads them: not the refresher's)
    const live = new Set(p.liveUsers())
    const reads = (from: number) =>
      ex.infoRequests
        .slice(from)
        .filter((r) => !live.has(String(r.user).toLowerCase()))
        .map((r) => `${String(r.type)}:${String(r.user).toLowerCase()}`)
    let from = ex.infoRequests.length
    // Rounds with nothing changed: balances only.
    for (let round = 0; round < 3; round++) {
      clock.advance(10_000)
      await pump(p, 12)
    }
    expect(reads(from).filter((r) => !r.startsWith('userBalances:'))).toEqual([])
    expect(reads(from).filter((r) => r === `userBalances:${Z}`).length).toBeGreaterThanOrEqual(3)
    // Z's balances change (a fill, an order): its fills and orders are read after that balance read.
    zTotal = '7'
    from = ex.infoRequests.length
    clock.advance(10_000)
    await pump(p, 14)
    expect(reads(from)).toEqual(expect.arrayContaining([`userBalances:${Z}`, `userFillsByTime:${Z}`, `openOrders:${Z}`]))
    expect(reads(from).filter((r) => !r.startsWith('userBalances:') && !r.endsWith(Z))).toEqual([])
  })

  it('a quiet polled account read again through /info tells its consumers the new age (same balances)', async () => {
    serve(new Map(), new Map())
    const p = strictPool(12)
    const Q = addr(11)
    const seen: number[] = []
    p.subscribe((u) => {
      if (u.kind === 'balances' && u.user === Q) seen.push(u.at)
    })
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 10)
    expect(p.liveUsers()).not.toContain(Q)
    await pump(p, 30)
    clock.advance(1000) // past the coalescing window
    const first = p.state(Q).balances!.at
    expect(seen.at(-1)).toBe(first)
    // Nothing changed; a round later its balances are read again: the screen learns they are current.
    clock.advance(10_000)
    await pump(p, 12)
    clock.advance(1000)
    expect(p.state(Q).balances!.at).toBeGreaterThan(first)
    expect(seen.at(-1)).toBe(p.state(Q).balances!.at)
  })

  it('an account found with open orders through /info is ranked up and streams', async () => {
    const Y = addr(9)
    const order = { oid: 5, cloid: null, original_qty: '1', filled_qty: '0', remaining_qty: '1', market_id: 1, side: 'bid', price: '100' }
    serve(new Map(), new Map([[Y, [order]]]))
    const p = strictPool(12)
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 10)
    expect(p.liveUsers()).not.toContain(Y)
    await pump(p, 30)
    expect(p.state(Y).openOrders?.value).toHaveLength(1)
    expect(p.rankOf(Y)).toBe(2)
    clock.advance(0) // the re-plan runs after the frame or read that showed the order
    expect(p.liveUsers()).toContain(Y)
    await until(() => subsOf(Y).length === 3)
    expect(ex.subscriptionCounts()).toEqual([10])
  })
  it('a quiet account moved off the stream is dated when it stopped streaming, not at its subscription', async () => {
    serve(new Map(), new Map())
    const p = strictPool(12)
    p.setPriority('screen', [addr(11)])
    p.start()
    await until(() => p.status().connected && subsOf(addr(11)).length > 0 && p.state(addr(11)).balances !== null)
    const streamedAt = p.state(addr(11)).balances!.at
    await until(() => p.isLive(addr(11), 'spotState', streamedAt))
    clock.advance(100_000) // quiet: no frame for 100 s, current all along
    expect(p.usable(addr(11), 'spotState', streamedAt)).toBe(true)
    // Three other pages open (the socket holds three accounts): this one leaves it for the refresher.
    p.setPriority('screen', [addr(0), addr(1), addr(2)])
    clock.advance(0)
    await until(() => !p.isLive(addr(11), 'spotState', p.state(addr(11)).balances!.at))
    expect(p.state(addr(11)).balances!.at).toBe(streamedAt + 100_000)
  })
})
