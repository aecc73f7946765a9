import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { onDispatch, RateScheduler, type DispatchEvent } from '../exchange/scheduler'
import { InfoClient } from '../exchange/info/client'
import { ManualClock } from './testing/manual-clock'
import type { StateUpdate } from './live-state'
import { StreamPool, type StreamPoolOptions } from './pool'
import { fakeSockets, type FakeSocket } from './testing/fake-socket'
import { MockExchange } from './testing/mock-exchange'

const A = '0x00000000000000000000000000000000000000aa'
const T0 = 1_700_000_000_000

let ex: MockExchange
let clock: ManualClock
let pool: StreamPool | undefined
let logs: string[]

beforeEach(async () => {
  ex = await new MockExchange().listen()
  clock = new ManualClock(T0)
  logs = []
})
afterEach(async () => {
  await pool?.stop()
  pool = undefined
  await ex.close()
})

const acct = (i: number) => `0x${i.toString(16).padStart(40, '0')}`
const fill = (tid: number, oid = 7) => ({
  coin: '1',
  px: '100',
  sz: '1',
  side: 'B',
  time: T0 + tid,
  oid,
  crossed: true,
  fee: '0',
  feeToken: '2',
  tid,
  cloid: null,
})
const infoFill = (tid: number) => ({
  tid,
  time: T0 + tid,
  side: 'B',
  fee_asset_id: 2,
  fee: '0',
  fee_mode: 'balance',
  coin: '1',
  px: '100',
  sz: '1',
  oid: 7,
})
const usdc = (total: string) => ({ user: A, balances: [{ coin: 'USDC', token: 1, total, hold: '0' }] })
/** Both assets of a trade move (the quote's total, and the base's as its mirror). */
const bal = (total: string, base = total) => ({
  user: A,
  balances: [
    { coin: 'USDC', token: 1, total, hold: '0' },
    { coin: 'BTC', token: 2, total: base, hold: '0' },
  ],
})
const orders = (sz: string) => ({
  user: A,
  orders: [{ coin: '1', side: 'B', limitPx: '100', sz, oid: 7, timestamp: T0, origSz: '5', cloid: null }],
})

function makePool(extra: Partial<StreamPoolOptions> = {}): { p: StreamPool; fs: ReturnType<typeof fakeSockets> } {
  // A healthy service answers every ping (liveness is not what these tests are about).
  const fs = fakeSockets({ autoPong: true })
  const info = new InfoClient({ baseUrl: ex.httpUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
  pool = new StreamPool({
    wsUrl: 'ws://fake/ws',
    info,
    clock,
    random: () => 0.5,
    reconcileIntervalMs: 0,
    createSocket: fs.factory,
    log: (l) => logs.push(l),
    ...extra,
  })
  return { p: pool, fs }
}

const fillsRequests = () => ex.infoRequests.filter((r) => r.type === 'userFillsByTime').length

describe('StreamPool prompt fills recovery', () => {
  it('a balance change with no fill since the last one means a lost fill frame: backfilled through /info after a 500 ms grace', async () => {
    ex.infoHandler = () => ({ fills: [infoFill(1), infoFill(2)] })
    const { p, fs } = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    const s = fs.last()
    s.open()
    s.frame('spotState', bal('100'))
    s.frame('userFills', { user: A, fills: [fill(1)] })
    s.frame('spotState', bal('101')) // explained by fill 1
    clock.advance(5_000)
    expect(fillsRequests()).toBe(0)
    s.frame('spotState', bal('102')) // fill 2's frame was dropped
    clock.advance(499)
    expect(fillsRequests()).toBe(0)
    clock.advance(1)
    await p.idle()
    expect(fillsRequests()).toBe(1)
    expect(p.fills(A).map((f) => f.tid)).toEqual([1n, 2n])
    expect(p.status().gapBackfills).toBe(1)
    expect(logs.some((l) => /1 fill\(s\) recovered through \/info after a balance change without a fill/.test(l))).toBe(true)
  })

  it('no /info call when the fill frame arrives within the grace, or when the frame repeats unchanged', async () => {
    ex.infoHandler = () => ({ fills: [] })
    const { p, fs } = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    const s = fs.last()
    s.open()
    s.frame('spotState', bal('100'))
    s.frame('spotState', bal('100'))
    s.frame('spotState', bal('101')) // state frame first ...
    clock.advance(200)
    s.frame('userFills', { user: A, fills: [fill(1)] }) // ... its fill 200 ms later
    clock.advance(5_000)
    await p.idle()
    expect(fillsRequests()).toBe(0)
    expect(p.status().gapBackfills).toBe(0)
  })

  it('an open order whose remaining size shrank with no fill frame triggers the backfill', async () => {
    ex.infoHandler = () => ({ fills: [infoFill(3)] })
    const { p, fs } = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    const s = fs.last()
    s.open()
    s.frame('openOrders', orders('5'))
    s.frame('openOrders', orders('4'))
    clock.advance(500)
    await p.idle()
    expect(p.fills(A).map((f) => f.tid)).toEqual([3n])
  })

  it('suspicions in a row cost at most one backfill per 2 s per user', async () => {
    ex.infoHandler = () => ({ fills: [] })
    const { p, fs } = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    const s = fs.last()
    s.open()
    s.frame('spotState', bal('100'))
    s.frame('spotState', bal('101'))
    clock.advance(500)
    await p.idle()
    expect(fillsRequests()).toBe(1)
    s.frame('spotState', bal('102'))
    s.frame('spotState', bal('103'))
    clock.advance(1_999) // the first check ran at 500 ms: the next one waits until 2 500 ms
    await p.idle()
    expect(fillsRequests()).toBe(1)
    clock.advance(1)
    await p.idle()
    expect(fillsRequests()).toBe(2)
  })

  it('a change in one asset alone (a deposit, an order placed) is not a lost fill: no /info read', async () => {
    ex.infoHandler = () => ({ fills: [] })
    const { p, fs } = makePool()
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    const s = fs.last()
    s.open()
    s.frame('spotState', bal('100', '5'))
    s.frame('spotState', bal('150', '5')) // a deposit of 50 USDC
    clock.advance(5_000)
    s.frame('spotState', {
      user: A,
      balances: [
        { coin: 'USDC', token: 1, total: '150', hold: '40' },
        { coin: 'BTC', token: 2, total: '5', hold: '0' },
      ],
    }) // a bid placed
    clock.advance(5_000)
    await p.idle()
    expect(fillsRequests()).toBe(0)
    s.frame('spotState', bal('110', '6')) // the bid filled: both assets moved, and no fill frame came
    clock.advance(500)
    await p.idle()
    expect(fillsRequests()).toBe(1)
  })

  it('while /info is saturated, a user has at most one gap read queued; a suspicion meanwhile is checked once after it', async () => {
    ex.infoHandler = () => ({ fills: [] })
    // The budget is held shut (as when higher lanes use all of it) until `shift` moves its clock on.
    let shift = 0
    const scheduler = new RateScheduler({ ratePerSec: 1000, now: () => Date.now() + shift })
    const { p, fs } = makePool({ info: new InfoClient({ baseUrl: ex.httpUrl, scheduler }) })
    p.setAccounts([{ address: A, kind: 'balance' }])
    // The reads left queued when an expectation fails are rejected, so the pool can stop.
    onTestFinished(() => scheduler.close())
    p.start()
    const s = fs.last()
    s.open()
    scheduler.pauseFor(3_600_000)
    s.frame('spotState', bal('100'))
    for (let i = 1; i <= 30; i++) {
      s.frame('spotState', bal(String(100 + i))) // balance changes without their fill frames, one every 2 s
      clock.advance(2_000)
    }
    expect(p.status().gapBackfills).toBe(1)
    expect(scheduler.stats().queued.reconcile).toBe(1)
    shift = 3_600_000
    scheduler.setRate(1000) // wakes the queue
    await p.idle()
    expect(fillsRequests()).toBe(1)
    // The suspicions while it waited: one more check after the grace, not thirty.
    clock.advance(500)
    await p.idle()
    expect(fillsRequests()).toBe(2)
    clock.advance(60_000)
    await p.idle()
    expect(fillsRequests()).toBe(2)
  })
})

describe('StreamPool balance latency', () => {
  it('a changed balance reaches the consumer at once; repeated identical frames neither deliver nor use up the leading edge', () => {
    const { p, fs } = makePool({ coalesceMs: 250, info: undefined })
    const got: [number, StateUpdate][] = []
    p.subscribe((u) => got.push([clock.now() - T0, u]))
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    const s = fs.last()
    s.open()
    s.frame('spotState', bal('100'))
    clock.advance(1_000)
    s.frame('spotState', bal('100')) // the service repeats identical frames
    clock.advance(10)
    s.frame('spotState', bal('101')) // a real change 10 ms later: delivered now, not at 250 ms
    expect(got.map(([t, u]) => [t, u.kind === 'balances' ? u.value[0]!.total : null])).toEqual([
      [0, '100'],
      [1_010, '101'],
    ])
    expect(p.state(A).balances!.at).toBe(T0 + 1_010)
  })
})

describe('StreamPool minute sweep', () => {
  const B = acct(0xbb)
  const usdcOf = (user: string, total: string) => ({ user, balances: [{ coin: 'USDC', token: 1, total, hold: '0' }] })

  it('reads the fills of accounts whose state changed since their last /info check (or whose snapshot was full), in the background lane; quiet accounts cost nothing', async () => {
    ex.infoHandler = (b) => (b.type === 'userFillsByTime' ? { fills: [] } : {})
    const sent: DispatchEvent[] = []
    onTestFinished(onDispatch((e) => sent.push(e)))
    // (a socket quiet for minutes would be replaced: liveness is not what this test is about)
    const { p, fs } = makePool({ reconcileIntervalMs: 60_000, silenceMs: 3_600_000, pingIntervalMs: 3_600_000 })
    const C = acct(0xcc)
    p.setAccounts([A, B, C].map((address) => ({ address, kind: 'balance' as const })))
    p.start()
    const s = fs.last()
    s.open()
    for (const u of [A, B, C]) s.frame('spotState', usdcOf(u, '100'))
    clock.advance(1_000)
    s.frame('spotState', usdcOf(A, '100')) // a repeat: not a change
    s.frame('spotState', usdcOf(B, '150')) // a deposit: a change
    // C's fills snapshot is full: older fills since the last confirmed point may lie beyond it.
    s.frame('userFills', { user: C, isSnapshot: true, fills: Array.from({ length: 100 }, (_, i) => fill(i + 1)) })
    const users = () => ex.infoRequests.filter((r) => r.type === 'userFillsByTime').map((r) => r.user)
    clock.advance(59_000)
    await p.idle()
    expect(users().sort()).toEqual([B, C])
    expect(sent.filter((e) => e.label === 'userFillsByTime').map((e) => e.lane)).toEqual(['background', 'background'])
    // Nothing changed since that check: the next sweep reads nothing.
    ex.infoRequests.length = 0
    clock.advance(60_000)
    await p.idle()
    expect(users()).toEqual([])
    // A change after the check makes the account due again.
    s.frame('spotState', usdcOf(A, '90'))
    clock.advance(60_000)
    await p.idle()
    expect(users()).toEqual([A])
  })
})

describe('StreamPool exact repeats', () => {
  it('an exact repeat of the latest snapshot only refreshes its age; a repeat of an older one, or after /info replaced the state, is applied', async () => {
    ex.infoHandler = (b) => (b.type === 'userBalances' ? { balances: [{ asset_id: 1, available: '50', locked: '0' }] } : {})
    const { p, fs } = makePool({ reconcileIntervalMs: 0 })
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    const s = fs.last()
    s.open()
    const one = JSON.stringify({ channel: 'spotState', data: usdc('1') })
    const two = JSON.stringify({ channel: 'spotState', data: usdc('2') })
    s.text(one)
    clock.advance(100)
    s.text(one)
    expect(p.state(A).balances).toMatchObject({ at: T0 + 100, value: [{ total: '1' }] })
    s.text(two)
    s.text(one) // older text again: state goes back to it
    expect(p.state(A).balances!.value[0]!.total).toBe('1')
    await p.refresh([{ channel: 'spotState', user: A }])
    expect(p.state(A).balances!.value[0]).toMatchObject({ total: null, available: '50' })
    s.text(one) // same text as the stream's latest, but /info replaced the state since
    expect(p.state(A).balances!.value[0]!.total).toBe('1')
    // a malformed frame is never remembered, so its repeat is dropped (and logged) again
    const bad = JSON.stringify({ channel: 'spotState', data: { user: A, balances: 3 } })
    s.text(bad)
    s.text(bad)
    expect(logs.filter((l) => /spotState frame/.test(l))).toHaveLength(2)
  })
})

describe('StreamPool connections', () => {
  it('opens the fewest connections the 10-subscription cap allows and reports them against the per-IP limit', () => {
    const { p, fs } = makePool({ info: undefined })
    p.setAccounts([1, 2, 3].map((i) => ({ address: acct(i), kind: 'balance' as const }))) // 9 subscriptions
    p.start()
    expect(fs.sockets).toHaveLength(1)
    expect(p.status()).toMatchObject({ connections: 1, connectionLimit: 1, neededConnections: 1, subscriptions: 9 })
    p.setAccounts([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((i) => ({ address: acct(i), kind: 'unknown' as const }))) // 48
    expect(fs.sockets).toHaveLength(5)
    expect(p.status()).toMatchObject({ connections: 5, connectionLimit: 1, neededConnections: 5, subscriptions: 48 })
    expect(p.status().detail).toMatch(/5 connections; the service counts 1 connection per IP/)
  })

  it('a socket the plan adds is "connecting", not a drop: connected stays true until an open socket closes', () => {
    const { p, fs } = makePool({ info: undefined })
    // Status changes are told to listeners, who read the cheap link key; it says what the full status says.
    const keys: string[] = []
    p.onStatusChange(() => keys.push(p.linkKey()))
    const keyOf = () => {
      const st = p.status()
      expect(p.linkKey()).toBe(`${st.connected}/${st.connections}/${st.subscriptions}/${st.reconnects}/${st.droppedFrames}`)
      return st
    }
    p.setAccounts([1, 2, 3].map((i) => ({ address: acct(i), kind: 'balance' as const })))
    p.start()
    expect(keyOf().connected).toBe(false) // nothing open yet
    fs.sockets[0]!.open()
    expect(keyOf().connected).toBe(true)
    p.setAccounts([1, 2, 3, 4, 5, 6].map((i) => ({ address: acct(i), kind: 'balance' as const }))) // 18 -> a second socket
    expect(fs.sockets).toHaveLength(2)
    expect(keyOf()).toMatchObject({ connected: true, connections: 2 }) // the new one is still opening
    fs.sockets[1]!.open()
    fs.sockets[0]!.fail('reset')
    expect(keyOf().connected).toBe(false) // an open socket dropped
    expect(keys.at(-1)).toMatch(/^false\/2\//)
    expect(keys.some((k) => k.startsWith('true/2/'))).toBe(true)
  })

  it('keeps new connections within the counted 30 per minute however fast a server drops them', () => {
    const { p, fs } = makePool({ info: undefined })
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    for (let i = 0; i < 29; i++) {
      fs.last().open()
      fs.last().frame('pong') // the server talks, so the backoff resets ...
      fs.last().fail('reset') // ... and drops at once
      clock.advance(375)
    }
    expect(fs.sockets).toHaveLength(30)
    expect(p.status().newConnectionsLastMinute).toBe(30)
    fs.last().open()
    fs.last().frame('pong')
    fs.last().fail('reset')
    clock.advance(375)
    expect(fs.sockets).toHaveLength(30) // the 31st waits for the first to leave the minute
    clock.advance(60_000 - 30 * 375)
    expect(fs.sockets).toHaveLength(31)
  })

  it('garbage on one connection costs one log line and that socket only; the others keep delivering', () => {
    const { p, fs } = makePool({ info: undefined })
    const users = [1, 2, 3, 4].map(acct)
    p.setAccounts(users.map((address) => ({ address, kind: 'balance' as const }))) // 12 -> 2 sockets
    p.start()
    fs.sockets.forEach((s) => s.open())
    const [s0, s1] = fs.sockets as [FakeSocket, FakeSocket]
    const onS1 = p.plan().connections[1]![0]!.user
    s0.binary(Buffer.from('garbage'))
    s0.text('not json')
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(/^stream: binary frame on the stream; reconnecting$/)
    expect(s0.closedWith).toBe(1003)
    s1.frame('spotState', { user: onS1, balances: [{ coin: 'USDC', token: 1, total: '9', hold: '0' }] })
    expect(p.state(onS1).balances!.value[0]!.total).toBe('9')
    s1.text('{"channel":"spotState","data":{"user":"x"}}')
    expect(logs).toHaveLength(2)
    expect(p.status().droppedFrames).toBe(2)
    expect(p.status().connections).toBe(2)
  })
})

describe('StreamPool against a real ws server sending garbage', () => {
  it('invalid UTF-8 and an oversized frame: each logged once, no unhandled error, the socket is replaced', async () => {
    const info = new InfoClient({ baseUrl: ex.httpUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
    ex.infoHandler = (b) =>
      b.type === 'userFillsByTime' ? { fills: [] } : b.type === 'openOrders' ? { market_id: -1, orders: [], truncated: false } : {}
    pool = new StreamPool({
      wsUrl: ex.wsUrl,
      info,
      clock,
      random: () => 0.5,
      reconcileIntervalMs: 0,
      maxFrameBytes: 1024,
      log: (l) => logs.push(l),
    })
    const p = pool
    p.setAccounts([{ address: A, kind: 'balance' }])
    p.start()
    const up = async (n: number) =>
      vi.waitFor(() => expect(p.status().connected && ex.connectionsOpened === n && ex.subscriptionCounts()[0] === 3).toBe(true), {
        timeout: 5000,
        interval: 5,
      })
    await up(1)
    ex.pushRaw(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]))
    await vi.waitFor(() => expect(p.status().connected).toBe(false), { timeout: 5000, interval: 5 })
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(/stream socket error: .*UTF-8/i)
    clock.advance(375)
    await up(2)
    ex.pushRaw(
      JSON.stringify({ channel: 'spotState', data: { user: A, balances: [{ coin: 'x'.repeat(2000), token: 1, total: '1', hold: '0' }] } }),
    )
    await vi.waitFor(() => expect(p.status().connected).toBe(false), { timeout: 5000, interval: 5 })
    expect(logs).toHaveLength(2)
    expect(logs[1]).toMatch(/stream socket error: .*payload/i)
    clock.advance(375)
    await up(3)
    ex.push('spotState', A, bal('7'))
    await vi.waitFor(() => expect(p.state(A).balances?.value[0]?.total).toBe('7'), { timeout: 5000, interval: 5 })
  })
})
