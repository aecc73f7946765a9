import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { RateScheduler } from '../exchange/scheduler'
import { InfoClient } from '../exchange/info/client'
import { ManualClock } from './testing/manual-clock'
import { StreamPool } from './pool'
import type { StateUpdate } from './live-state'
import { MockExchange } from './testing/mock-exchange'

const A = '0x00000000000000000000000000000000000000aa'
const B = '0x00000000000000000000000000000000000000bb'

let ex: MockExchange
let clock: ManualClock
let pool: StreamPool | undefined

beforeEach(async () => {
  ex = await new MockExchange().listen()
  clock = new ManualClock(1_700_000_000_000)
})
afterEach(async () => {
  await pool?.stop()
  pool = undefined
  await ex.close()
})

const wsFill = (tid: string, time: number) =>
  `{"coin":"1","px":"100","sz":"1","side":"B","time":${time},"oid":1,"crossed":true,"fee":"0","feeToken":"2","tid":${tid},"cloid":null}`

function makePool(extra: Partial<ConstructorParameters<typeof StreamPool>[0]> = {}): StreamPool {
  const info = new InfoClient({ baseUrl: ex.httpUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
  pool = new StreamPool({ wsUrl: ex.wsUrl, info, clock, random: () => 0.5, reconcileIntervalMs: 0, ...extra })
  return pool
}

async function until(cond: () => boolean): Promise<void> {
  const where = new Error().stack?.split('\n')[2]?.trim() ?? ''
  await vi.waitFor(() => expect(cond(), where).toBe(true), { timeout: 5000, interval: 5 })
}

describe('StreamPool', () => {
  it('subscribes every account channel, at most 10 per socket, and reports state coalesced', async () => {
    const p = makePool()
    const accounts = Array.from({ length: 4 }, (_, i) => ({
      address: `0x${(i + 1).toString(16).padStart(40, '0')}`,
      kind: 'balance' as const,
    }))
    p.setAccounts(accounts)
    const updates: StateUpdate[] = []
    p.subscribe((u) => updates.push(u))
    p.start()
    await until(() => ex.subscriptionCounts().reduce((a, b) => a + b, 0) === 12)
    expect(ex.subscriptionCounts().sort((a, b) => a - b)).toEqual([2, 10])
    await until(() => p.status().connected)

    const user = accounts[0]!.address
    for (let i = 1; i <= 30; i++) ex.push('spotState', user, { user, balances: [{ coin: 'USDC', token: 2, total: `${i}.5`, hold: '1' }] })
    await until(() => p.state(user).balances?.value[0]?.total === '30.5')
    // the first frames (up to the burst of 4) delivered at once, the rest merged into one delivery when the window closes
    expect(updates.filter((u) => u.kind === 'balances')).toHaveLength(4)
    clock.advance(250)
    const bal = updates.filter((u) => u.kind === 'balances')
    expect(bal).toHaveLength(5)
    expect(bal[4]!.value).toEqual([{ assetId: 2, coin: 'USDC', total: '30.5', locked: '1', available: null }])
  })

  it('deduplicates fills from the snapshot and live frames, keeping tids above 2^53 exact', async () => {
    const p = makePool()
    ex.onSubscribe = (ch, user, send) => {
      if (ch === 'userFills')
        send(
          JSON.parse(
            `{"user":"${user}","isSnapshot":true,"fills":[${wsFill('18446744073709551610', 1)}]}`.replace(/"tid":(\d+)/, '"tid":"$1"'),
          ),
        )
    }
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    await until(() => p.fills(A).length === 1)
    ex.push('userFills', A, `{"user":"${A}","fills":[${wsFill('18446744073709551610', 1)},${wsFill('18446744073709551611', 2)}]}`)
    await until(() => p.fills(A).length === 2)
    expect(p.fills(A).map((f) => f.tid)).toEqual([18446744073709551610n, 18446744073709551611n])
  })

  it('after a dropped connection: reconnects with backoff, resubscribes, and backfills the missed fills through /info', async () => {
    const truth = [1, 2, 3, 4, 5].map((i) => ({
      tid: i,
      time: 1_700_000_000_000 + i,
      side: 'B',
      fee_asset_id: 2,
      fee: '0',
      fee_mode: 'balance',
      coin: '1',
      px: '100',
      sz: '1',
    }))
    ex.infoHandler = (b) =>
      b.type === 'userFillsByTime'
        ? { fills: truth.filter((f) => f.time >= (b.start_time_ms as number)) }
        : b.type === 'openOrders'
          ? { market_id: -1, orders: [], truncated: false }
          : {}
    const p = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    let reconnects = 0
    p.onReconnect(() => reconnects++)
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 3)
    ex.push('userFills', A, `{"user":"${A}","fills":[${wsFill('1', 1_700_000_000_001)},${wsFill('2', 1_700_000_000_002)}]}`)
    await until(() => p.fills(A).length === 2)

    ex.dropAll() // fills 3..5 happen while disconnected
    await until(() => !p.status().connected)
    expect(ex.connectionsOpened).toBe(1)
    clock.advance(249) // first retry: 500 ms base, equal jitter at random 0.5 -> 375 ms
    expect(ex.connectionsOpened).toBe(1)
    clock.advance(200)
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 3)
    await p.idle()
    expect(p.fills(A).map((f) => f.tid)).toEqual([1n, 2n, 3n, 4n, 5n])
    const fillsReq = ex.infoRequests.find((r) => r.type === 'userFillsByTime')
    // nothing confirmed through /info yet: from the pool's start, less a margin
    expect(fillsReq).toMatchObject({ user: A, start_time_ms: 1_700_000_000_000 - 300_000 })
    expect(ex.infoRequests.some((r) => r.type === 'openOrders')).toBe(true)
    expect(p.status().reconnects).toBe(1)
    expect(reconnects).toBe(1)
  })

  it('live state stands in for a read while its channel streams, or for 30 s after it stopped; never longer', async () => {
    ex.infoHandler = (b) =>
      b.type === 'openOrders' ? { market_id: -1, orders: [], truncated: false } : b.type === 'userFillsByTime' ? { fills: [] } : {}
    const p = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 3)
    ex.push('openOrders', A, { user: A, isSnapshot: true, orders: [] })
    await until(() => p.state(A).openOrders != null)
    const at = p.state(A).openOrders!.at
    // A quiet account: no frame for a minute, yet its channel streams, so nothing changed.
    clock.advance(60_000)
    expect(p.usable(A, 'openOrders', at)).toBe(true)
    // The socket drops (and cannot come back yet): the same state is a minute old, not current.
    ex.dropAll()
    await until(() => !p.status().connected)
    expect(p.usable(A, 'openOrders', at)).toBe(false)
    expect(p.usable(A, 'openOrders', clock.now() - 30_000)).toBe(true)
    expect(p.usable(A, 'openOrders', clock.now() - 30_001)).toBe(false)
  })

  it('recovers a dropped frame hidden behind a later one, then reads on from the confirmed point', async () => {
    const truth = [1, 2, 3].map((i) => ({ tid: i, time: 1_700_000_000_000 + i, side: 'A', fee_asset_id: null, fee: '0', fee_mode: null }))
    ex.infoHandler = (b) => ({ fills: truth.filter((f) => f.time >= (b.start_time_ms as number)) })
    const p = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 3)
    ex.push('userFills', A, `{"user":"${A}","fills":[${wsFill('1', 1_700_000_000_001)}]}`)
    // the frame with tid 2 is lost; tid 3 arrives
    ex.push('userFills', A, `{"user":"${A}","fills":[${wsFill('3', 1_700_000_000_003)}]}`)
    await until(() => p.fills(A).length === 2)
    expect(await p.reconcileFills()).toBe(1)
    expect(p.fills(A).map((f) => f.tid)).toEqual([1n, 2n, 3n])
    expect(await p.reconcileFills()).toBe(0)
    expect(ex.infoRequests.filter((r) => r.type === 'userFillsByTime').map((r) => r.start_time_ms)).toEqual([
      1_700_000_000_000 - 300_000,
      1_700_000_000_003,
    ])
  })

  it('a silent socket is probed after 1 s of silence, dropped when the pong does not come within 3 s, and replaced', async () => {
    const p = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 3)
    ex.silent = true
    // Whether or not the ping sent after subscribing was answered before the silence, a ping
    // goes unanswered within 1 s + 3 s.
    clock.advance(4_000)
    await until(() => !p.status().connected)
    expect(p.status().detail).toMatch(/no pong within 3000 ms/)
    ex.silent = false
    clock.advance(1_000)
    await until(() => p.status().connected && ex.connectionsOpened === 2)
  })

  it('refreshes channels that do not fit through /info', async () => {
    ex.infoHandler = (b) => {
      if (b.type === 'userBalances') return { balances: [{ asset_id: 1, available: '2', locked: '0.5' }] }
      if (b.type === 'spotCreditAccount')
        return {
          status: 'active',
          credit_usd_atoms: '100000000000',
          available_usd_atoms: '5',
          last_known_available_usd_atoms: '5',
          credit_trading_whitelisted_market_ids: [],
        }
      if (b.type === 'spotCreditPositions')
        return {
          positions: [
            {
              asset_id: 1,
              symbol: 'BTC',
              actual_display: '-0.5',
              actual_qty: '-50000000',
              pending_exposure_display: '0',
              pending_exposure_qty: '0',
            },
          ],
        }
      if (b.type === 'openOrders') return { market_id: -1, orders: [], truncated: false }
      if (b.type === 'userFillsByTime') return { fills: [] }
      return {}
    }
    const p = makePool({ maxConnections: 0 })
    const plan = p.setAccounts([
      { address: A, kind: 'balance' },
      { address: B, kind: 'credit' },
    ])
    expect(plan.polled).toHaveLength(6)
    p.start()
    clock.advance(0)
    await until(() => p.state(B).credit !== null && p.state(A).balances !== null && p.state(A).openOrders !== null)
    await p.idle()
    expect(p.state(A).balances!.value).toEqual([{ assetId: 1, coin: null, total: null, locked: '0.5', available: '2' }])
    expect(p.state(B).credit!.value).toMatchObject({ authorized: true, status: 'active', creditUsdAtoms: 100000000000n })
    expect(p.state(B).credit!.value.positions[0]!.actual_qty).toBe(-50000000n)
    expect(p.status().detail).toMatch(/do not fit/)
  })

  it('follows a new plan while running: new topics subscribed, removed ones unsubscribed, sockets added', async () => {
    const p = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 3)
    const more = Array.from({ length: 4 }, (_, i) => ({
      address: `0x${(i + 16).toString(16).padStart(40, '0')}`,
      kind: 'balance' as const,
    }))
    p.setAccounts(more)
    await until(() => ex.subscriptionCounts().reduce((a, b) => a + b, 0) === 12 && ex.sockets.size === 2)
    expect(ex.subscriptionCounts().sort((a, b) => a - b)).toEqual([2, 10])
    expect([...ex.sockets].some((s) => [...s.subs].some((k) => k.endsWith(A)))).toBe(false)
    await until(() => p.status().connected)
    expect(p.status()).toMatchObject({ connections: 2, subscriptions: 12 })
  })

  it('counts a malformed frame as a problem and keeps the socket', async () => {
    const p = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 3)
    ex.push('spotState', A, { user: A, balances: [{ coin: 'X', token: 'one', total: '1', hold: '0' }] })
    await until(() => /spotState frame/.test(p.status().detail))
    ex.push('spotState', A, { user: A, balances: [] })
    await until(() => p.state(A).balances !== null)
    expect(p.status().connected).toBe(true)
  })
  it('an accepted cancel keeps its orders gone: a /info answer or a frame from before it does not list them again', async () => {
    const wsOrder = (oid: number) => ({ coin: '2', side: 'B', limitPx: '100', sz: '1', oid, timestamp: 1, origSz: '1', cloid: null })
    const infoOrder = (oid: number) => ({
      oid: String(oid),
      cloid: null,
      original_qty: '1',
      filled_qty: '0',
      remaining_qty: '1',
      market_id: 2,
    })
    // The read a follow-up refresh sent before the cancel executed: it still lists 11 and 12.
    ex.infoHandler = (b) =>
      b.type === 'openOrders' ? { market_id: -1, orders: [infoOrder(11), infoOrder(12), infoOrder(21)], truncated: false } : {}
    const p = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 3)
    ex.push('openOrders', A, { user: A, orders: [wsOrder(11), wsOrder(12), wsOrder(21)] })
    const oids = () => p.state(A).openOrders?.value.map((o) => String(o.oid))
    await until(() => oids()?.length === 3)

    p.dropOrders(A, { oids: ['11'] })
    expect(oids()).toEqual(['12', '21'])
    // a cancel of market 2's orders: 12 and 21 are known there now
    p.dropOrders(A, { marketIds: [2] })
    expect(oids()).toEqual([])

    // The stale answer lands after the cancels (the stream, quiet, would never correct it).
    clock.advance(1000)
    await p.refresh([{ channel: 'openOrders', user: A }], 'reconcile')
    expect(oids()).toEqual([])
    // A frame built before the cancel and delivered after it; then a new order is listed as usual.
    ex.push('openOrders', A, { user: A, orders: [wsOrder(11), wsOrder(12)] })
    ex.push('openOrders', A, { user: A, orders: [wsOrder(11), wsOrder(30)] })
    await until(() => oids()?.includes('30') === true)
    expect(oids()).toEqual(['30'])
  })

  it('a /info answer sent before the latest frame of a streaming channel does not set the orders back', async () => {
    const wsOrder = (oid: number) => ({ coin: '2', side: 'B', limitPx: '100', sz: '1', oid, timestamp: 1, origSz: '1', cloid: null })
    const p = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    await until(() => p.status().connected && ex.subscriptionCounts()[0] === 3)
    const oids = () => p.state(A).openOrders?.value.map((o) => String(o.oid))
    const issuedAt = p.time()
    clock.advance(10)
    ex.push('openOrders', A, { user: A, orders: [wsOrder(40)] })
    await until(() => oids()?.length === 1)
    // The answer to a read sent before that frame: it misses order 40.
    p.noteOpenOrders(A, { orders: [], truncated: false }, p.time(), issuedAt)
    expect(oids()).toEqual(['40'])
    // Sent after it: it is the newer state.
    p.noteOpenOrders(A, { orders: [], truncated: false }, p.time(), p.time())
    expect(oids()).toEqual([])
  })
})
