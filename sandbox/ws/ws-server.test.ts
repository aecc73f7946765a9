import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { BlockEvents, HttpResult, TradingService, WsFill, WsOrderUpdate } from '../trading/types'
import { TestSocket } from '../testing/ws-client'
import { createWsServer, flattenFailure, type SandboxWsServer } from './ws-server'
import { splitArrayFrames } from './split-frames'
import { Throttle } from './throttle'

const USER = '0x00000000000000000000000000000000000000aa'
const fill = (tid: number): WsFill => ({
  coin: '1',
  px: '1.5',
  sz: '2',
  side: 'B',
  time: tid,
  oid: tid,
  crossed: true,
  fee: '0',
  feeToken: '1',
  tid,
  cloid: null,
})

// A stand-in for the trading service: only what the socket layer reads.
function fakeTrading() {
  const listeners = new Set<(b: BlockEvents) => void>()
  let release: (() => void) | null = null
  const svc = {
    chainId: 1,
    marketExists: (id: string) => id === '1',
    l2Book: (coin: string) => ({ coin, levels: [[{ px: '1', sz: '1', n: 1 }], []], time: 1 }),
    bbo: (coin: string) => ({ coin, time: 1, bbo: [{ px: '1', sz: '1', n: 1 }, null] }),
    allMids: () => ({ mids: { '1': '1.05' } }),
    openOrders: (user: string) => ({ user, orders: [] }),
    spotState: (user: string) => ({ user, balances: [] }),
    spotCreditState: (user: string) => ({ user, authorized: false, positions: [] }),
    recentFills: (_u: string, n = 100) => Array.from({ length: 120 }, (_, i) => fill(i + 1)).slice(-n),
    onBlock(l: (b: BlockEvents) => void) {
      listeners.add(l)
      return () => listeners.delete(l)
    },
    async handleInfo(body: string): Promise<HttpResult> {
      const b = JSON.parse(body)
      if (b.type === 'slow') await new Promise<void>((r) => (release = r))
      if (b.type === 'limited') return { status: 429, body: { error: { code: 'RateLimited', message: 'retry after 750 ms' } } }
      return { status: 200, body: { echo: b.type } }
    },
    async handleTrade(): Promise<HttpResult> {
      return { status: 504, body: { submission_status: 'timeout', tx_hash: '0x1', error: { code: 'NodeUnreachable' } } }
    },
  }
  const emit = (b: Partial<BlockEvents>) => {
    const full: BlockEvents = {
      height: 1,
      timeMs: 1,
      trades: [],
      orderUpdates: [],
      fills: [],
      transfers: [],
      touchedMarkets: new Set(),
      touchedUsers: new Set(),
      ...b,
    }
    for (const l of listeners) l(full)
  }
  return { svc: svc as unknown as TradingService, emit, release: () => release?.() }
}

let server: Server
let ws: SandboxWsServer
let fake: ReturnType<typeof fakeTrading>
let url: string
const sockets: TestSocket[] = []
const open = async () => {
  const s = await TestSocket.open(url)
  sockets.push(s)
  return s
}

beforeAll(async () => {
  fake = fakeTrading()
  ws = createWsServer(fake.svc, { idleMs: 400 })
  server = createServer((_req, res) => res.end())
  server.on('upgrade', (req, socket, head) => ws.handleUpgrade(req, socket, head))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`
})
afterEach(() => {
  for (const s of sockets.splice(0)) s.close()
  ws.faults.dropProbability = 0
  ws.faults.silent = false
})
afterAll(async () => {
  await ws.close()
  await new Promise((r) => server.close(r))
})

describe('subscribe and unsubscribe', () => {
  it('acknowledges, refuses repeats, echoes bad requests', async () => {
    const s = await open()
    const sub = { type: 'trades', coin: '1' }
    expect(await s.request({ method: 'subscribe', subscription: sub })).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'subscribe', subscription: sub },
    })
    const again = await s.request({ method: 'subscribe', subscription: sub })
    expect(again.channel).toBe('error')
    expect(again.data).toMatch(/^Already subscribed:/)
    expect((await s.request({ method: 'unsubscribe', subscription: sub })).data).toEqual({ method: 'unsubscribe', subscription: sub })
    expect((await s.request({ method: 'unsubscribe', subscription: sub })).data).toMatch(/^Already unsubscribed:/)

    const cases: [unknown, RegExp][] = [
      ['{not json', /\{not json/],
      [{ method: 'subscrib', subscription: sub }, /subscrib/],
      [{ method: 'subscribe', subscription: { type: 'candle', coin: '1' } }, /candle/],
      [{ method: 'subscribe', subscription: { type: 'userFills', user: '0x12' } }, /0x12/],
      [{ method: 'subscribe', subscription: { type: 'l2Book', coin: '99' } }, /"99"/],
    ]
    for (const [req, echo] of cases) {
      const f = await s.request(req)
      expect(f.channel).toBe('error')
      expect(f.data).toMatch(echo)
    }
  })

  it('caps a connection at 10 subscriptions and keeps the earlier ones', async () => {
    const s = await open()
    for (let i = 0; i < 10; i++) {
      const user = '0x' + String(i).padStart(40, '0')
      expect((await s.request({ method: 'subscribe', subscription: { type: 'orderUpdates', user } })).channel).toBe('subscriptionResponse')
    }
    expect(await s.request({ method: 'subscribe', subscription: { type: 'trades', coin: '1' } })).toEqual({
      channel: 'error',
      data: 'Too many subscriptions',
    })
    const got = s.channel('orderUpdates')
    fake.emit({ orderUpdates: [{ user: ('0x' + '0'.repeat(39) + '3') as `0x${string}`, update: { status: 'open' } as WsOrderUpdate }] })
    expect((await got).data).toEqual([{ status: 'open' }])
  })
})

describe('snapshots and pushes', () => {
  it('userFills snapshot is the last 100, oldest first; live frames omit isSnapshot', async () => {
    const s = await open()
    await s.request({ method: 'subscribe', subscription: { type: 'userFills', user: USER.toUpperCase().replace('0X', '0x') } })
    const snap = await s.channel('userFills')
    expect(snap.data.isSnapshot).toBe(true)
    expect(snap.data.fills).toHaveLength(100)
    expect(snap.data.fills[0].tid).toBe(21)
    fake.emit({ fills: [{ user: USER, fill: fill(500) }] })
    const live = await s.channel('userFills')
    expect(live.data).toEqual({ user: USER, fills: [fill(500)] })
  })

  it('openOrders and spotCreditState snapshot carry isSnapshot; bbo/trades send none', async () => {
    const s = await open()
    await s.request({ method: 'subscribe', subscription: { type: 'openOrders', user: USER } })
    expect((await s.channel('openOrders')).data).toEqual({ isSnapshot: true, user: USER, orders: [] })
    await s.request({ method: 'subscribe', subscription: { type: 'spotCreditState', user: USER } })
    expect((await s.channel('spotCreditState')).data).toMatchObject({ isSnapshot: true, authorized: false })
    await s.request({ method: 'subscribe', subscription: { type: 'bbo', coin: '1' } })
    await s.request({ method: 'subscribe', subscription: { type: 'trades', coin: '1' } })
    fake.emit({ touchedMarkets: new Set(['1']), trades: [{ coin: '1' } as never] })
    // the first bbo/trades frames are the block's events, not snapshots
    expect((await s.channel('trades')).data).toEqual([{ coin: '1' }])
    expect((await s.channel('bbo')).data.coin).toBe('1')
    expect(s.frames.filter((f) => f.channel === 'bbo')).toHaveLength(1)
  })

  it('splits orderUpdates beyond 56 KiB, in order', () => {
    const big = Array.from({ length: 600 }, (_, i) => ({
      order: { coin: '1', cloid: 'x'.repeat(100), oid: i },
      status: 'open',
      statusTimestamp: i,
    }))
    const frames = splitArrayFrames('orderUpdates', big)
    expect(frames.length).toBeGreaterThan(1)
    for (const f of frames) expect(Buffer.byteLength(f)).toBeLessThanOrEqual(56 * 1024)
    expect(frames.flatMap((f) => JSON.parse(f).data.map((u: { order: { oid: number } }) => u.order.oid))).toEqual(big.map((_, i) => i))
  })

  it('throttle sends at most once per floor and conflates touches', () => {
    vi.useFakeTimers()
    try {
      const sent: number[] = []
      const t = new Throttle(500, () => sent.push(Date.now()), Date.now)
      const t0 = Date.now()
      t.touch()
      t.touch()
      t.touch()
      vi.advanceTimersByTime(499)
      expect(sent).toEqual([t0])
      vi.advanceTimersByTime(1)
      expect(sent).toEqual([t0, t0 + 500])
      vi.advanceTimersByTime(2000)
      expect(sent).toHaveLength(2)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('post, ping, idle, faults', () => {
  it('answers info, refuses explorer, one in flight, flattens failures', async () => {
    const s = await open()
    expect((await s.request({ method: 'post', id: 7, request: { type: 'info', payload: { type: 'x' } } }, ['post'])).data).toEqual({
      id: 7,
      response: { type: 'info', payload: { echo: 'x' } },
    })
    expect((await s.request({ method: 'post', id: 8, request: { type: 'explorer', payload: {} } }, ['post'])).data.response).toEqual({
      type: 'error',
      payload: '400 explorer requests are not supported',
    })
    const slow = s.next((f) => f.channel === 'post' && f.data.id === 1)
    s.send({ method: 'post', id: 1, request: { type: 'info', payload: { type: 'slow' } } })
    const second = await s.request({ method: 'post', id: 2, request: { type: 'info', payload: { type: 'x' } } }, ['post'])
    expect(second.data).toEqual({ id: 2, response: { type: 'error', payload: '429 Too many in-flight post requests' } })
    fake.release()
    expect((await slow).data.response.type).toBe('info')
    expect((await s.request({ method: 'post', id: 3, request: { type: 'action', payload: {} } }, ['post'])).data.response).toEqual({
      type: 'error',
      payload: '504 NodeUnreachable',
    })
    expect(
      (await s.request({ method: 'post', id: 4, request: { type: 'info', payload: { type: 'limited' } } }, ['post'])).data.response.payload,
    ).toBe('429 Rate limited, retry after 750ms')
    expect(flattenFailure({ status: 503, body: { error: { code: 'Unavailable', retry_after_ms: 50 } } })).toBe('503 Unavailable')
  })

  it('pongs, closes after the idle time without outbound frames, caps inbound at 64 KiB', async () => {
    const s = await open()
    expect(await s.request({ method: 'ping' }, ['pong'])).toEqual({ channel: 'pong' })
    expect((await s.waitClose()).reason).toBe('idle timeout')
    const big = await open()
    big.send({ method: 'ping', pad: 'x'.repeat(64 * 1024) })
    expect((await big.waitClose()).code).toBe(1009)
  })

  it('silent socket sends no pong; dropped frames and disconnect-all', async () => {
    const s = await open()
    ws.faults.silent = true
    s.send({ method: 'ping' })
    await expect(s.channel('pong', 200)).rejects.toThrow(/no matching frame/)
    ws.faults.silent = false
    await s.request({ method: 'subscribe', subscription: { type: 'trades', coin: '1' } })
    ws.faults.dropProbability = 1
    fake.emit({ trades: [{ coin: '1' } as never] })
    expect(await s.request({ method: 'ping' }, ['pong', 'trades'])).toEqual({ channel: 'pong' })
    expect(ws.disconnectAll()).toBeGreaterThanOrEqual(1)
    expect((await s.waitClose()).code).toBe(1006)
  })
})

describe('counted connection limits (spec §8), enforced under the fault', () => {
  it('counts always; under the fault refuses a second connection and a 31st new one within a minute, with an error frame', async () => {
    let t = 1_000_000
    const own = createWsServer(fake.svc, { now: () => t })
    const srv = createServer((_req, res) => res.end())
    srv.on('upgrade', (req, socket, head) => own.handleUpgrade(req, socket, head))
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
    const u = `ws://127.0.0.1:${(srv.address() as AddressInfo).port}/ws`
    const mine: TestSocket[] = []
    const connect = async () => {
      const s = await TestSocket.open(u)
      mine.push(s)
      return s
    }
    const closed = async (s: TestSocket) => {
      s.close()
      await vi.waitFor(() => expect(own.connectionCount()).toBe(mine.filter((m) => !m.closed).length))
    }
    try {
      // Without the fault: two at once are served (counted only).
      const a = await connect()
      const b = await connect()
      expect(await b.request({ method: 'ping' }, ['pong'])).toEqual({ channel: 'pong' })
      expect(own.limitStats().maxOpenPerIp).toBe(2)
      await closed(a)
      await closed(b)

      own.faults.enforceConnectionLimits = true
      const first = await connect()
      const second = await connect()
      expect(await second.next((f) => f.channel === 'error')).toEqual({ channel: 'error', data: 'Too many connections' })
      expect((await second.waitClose()).code).toBe(1008)
      // The first keeps running.
      expect(await first.request({ method: 'ping' }, ['pong'])).toEqual({ channel: 'pong' })
      expect(own.limitStats().refused).toEqual({ tooMany: 1, tooManyNew: 0 })
      await closed(first)

      // 4 attempts so far in this minute (a refused one counts too); up to 30 pass one at a time, the 31st is refused.
      for (let i = 4; i < 30; i++) await closed(await connect())
      expect(Object.values(own.limitStats().newConnectionsLastMinute)).toEqual([30])
      const over = await connect()
      expect(await over.next((f) => f.channel === 'error')).toEqual({ channel: 'error', data: 'Too many new connections' })
      expect((await over.waitClose()).code).toBe(1008)
      // A minute later the budget is back.
      t += 60_001
      const later = await connect()
      expect(await later.request({ method: 'ping' }, ['pong'])).toEqual({ channel: 'pong' })
      expect(own.limitStats().refused).toEqual({ tooMany: 1, tooManyNew: 1 })
    } finally {
      for (const s of mine) s.close()
      await own.close()
      await new Promise((r) => srv.close(r))
    }
  })
})
