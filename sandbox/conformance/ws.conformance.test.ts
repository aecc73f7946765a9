// trading-api.md §4 "WebSocket", §6 and §8 against the real trading service over a real socket.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxHandle } from '../index'
import { devOwner } from '../scenario/dev-keys'
import { TestSocket } from '../testing/ws-client'
import { newCloid, postJson, postRaw, startTestSandbox, tradeSigner } from '../testing/conformance-harness'

let sb: SandboxHandle
const sockets: TestSocket[] = []
const open = async () => {
  const s = await TestSocket.open(sb.wsUrl)
  sockets.push(s)
  return s
}
const O0 = devOwner(0).address
const O1 = devOwner(1).address

beforeAll(async () => {
  sb = await startTestSandbox({ seed: true })
})
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close()
  await postJson(`${sb.adminUrl}/faults/reset`, {})
})
afterAll(async () => {
  await sb?.stop()
})

describe('subscriptions against the seeded sandbox', () => {
  it('refuses what is not valid, echoing the request', async () => {
    const s = await open()
    const bad = [
      { method: 'subscribe', subscription: { type: 'candle', coin: '1', interval: '1m' } },
      { method: 'subscribe', subscription: { type: 'l2Book', coin: '999' } },
      { method: 'subscribe', subscription: { type: 'openOrders', user: 'alice' } },
      { method: 'subscribed', subscription: { type: 'trades', coin: '1' } },
    ]
    for (const req of bad) {
      const f = await s.request(req)
      expect(f.channel).toBe('error')
      expect(f.data).toContain(JSON.stringify(req))
    }
    expect((await s.request('{"method":')).data).toContain('{"method":')
  })

  it('sends the snapshot channels their state on subscribe', async () => {
    const s = await open()
    await s.request({ method: 'subscribe', subscription: { type: 'l2Book', coin: '2' } })
    const book = await s.channel('l2Book')
    expect(book.data.coin).toBe('2')
    expect(book.data.levels[0][0]).toMatchObject({ px: '2990', n: 1 })
    expect(book.data.levels[1][0]).toMatchObject({ px: '3450.5' })

    await s.request({ method: 'subscribe', subscription: { type: 'openOrders', user: O0.toUpperCase().replace('0X', '0x') } })
    const oo = await s.channel('openOrders')
    expect(oo.data.isSnapshot).toBe(true)
    expect(oo.data.orders.map((o: any) => o.cloid)).toEqual(
      expect.arrayContaining(['0x000000000000000000000000005eed01', '0x000000000000000000000000005eed02']),
    )

    await s.request({ method: 'subscribe', subscription: { type: 'spotState', user: O0 } })
    const ss = await s.channel('spotState')
    expect(ss.data.balances.find((b: any) => b.token === 1).coin).toBe('USDC')

    await s.request({ method: 'subscribe', subscription: { type: 'spotCreditState', user: devOwner(3).address } })
    const cs = await s.channel('spotCreditState')
    expect(cs.data).toMatchObject({ isSnapshot: true, authorized: true, status: 'active' })
    expect(cs.data.positions.length).toBe(2)

    await s.request({ method: 'subscribe', subscription: { type: 'allMids' } })
    expect((await s.channel('allMids')).data.mids['2']).toBeDefined()

    await s.request({ method: 'subscribe', subscription: { type: 'userFills', user: O1 } })
    expect((await s.channel('userFills')).data).toMatchObject({ isSnapshot: true })
  })

  it('pushes trades, fills and order updates of a real crossing order', async () => {
    const s = await open()
    await s.request({ method: 'subscribe', subscription: { type: 'trades', coin: '2' } })
    await s.request({ method: 'subscribe', subscription: { type: 'userFills', user: O1 } })
    await s.channel('userFills') // snapshot
    await s.request({ method: 'subscribe', subscription: { type: 'orderUpdates', user: O1 } })
    const buyer = tradeSigner(devOwner(1).privateKey, sb.chainId)
    const cloid = newCloid()
    const res = await postRaw(
      `${sb.tradingUrl}/trade`,
      await buyer.body({
        type: 'order',
        market_id: '2',
        side: 'bid',
        order_type: 'limit',
        tif: 'ioc',
        price: '3450.5',
        quantity: '0.5',
        cloid,
      }),
    )
    expect(res.status).toBe(200)
    expect(res.body.submission_status).toBe('accepted')
    const trades = await s.channel('trades')
    expect(trades.data[0]).toMatchObject({ coin: '2', side: 'B', px: '3450.5', sz: '0.5', users: [O1, O0] })
    const fills = await s.channel('userFills')
    expect(fills.data.isSnapshot).toBeUndefined()
    expect(fills.data.fills[0]).toMatchObject({ side: 'B', crossed: true, tid: trades.data[0].tid, cloid })
    const ups = await s.channel('orderUpdates')
    expect(ups.data[0]).toMatchObject({ order: { coin: '2', side: 'B', cloid }, status: 'filled' })
    const gt = (await fetch(`${sb.adminUrl}/ground-truth?cloid=${cloid}`).then((r) => r.json())) as any
    expect(gt.transactions).toHaveLength(1)
    expect(gt.transactions[0]).toMatchObject({ cloid, actionType: 'order' })
  })
})

describe('throttled channels push when touched', () => {
  it('l2Book and openOrders push again after a new resting order', async () => {
    const s = await open()
    await s.request({ method: 'subscribe', subscription: { type: 'l2Book', coin: '1' } })
    const first = await s.channel('l2Book')
    await s.request({ method: 'subscribe', subscription: { type: 'openOrders', user: O1 } })
    await s.channel('openOrders')
    const o1 = tradeSigner(devOwner(1).privateKey, sb.chainId)
    const r = await postRaw(
      `${sb.tradingUrl}/trade`,
      await o1.body({ type: 'order', market_id: '1', side: 'bid', order_type: 'limit', tif: 'gtc', price: '40000', quantity: '0.01' }),
    )
    expect(r.body.submission_status).toBe('accepted')
    const book = await s.channel('l2Book')
    expect(book.data.levels[0].some((l: any) => l.px === '40000')).toBe(true)
    expect(book.data.time).toBeGreaterThanOrEqual(first.data.time)
    const oo = await s.channel('openOrders')
    expect(oo.data.isSnapshot).toBeUndefined()
    expect(oo.data.orders.some((o: any) => o.limitPx === '40000')).toBe(true)
  })
})

describe('post over the socket', () => {
  it('info and action replies; a second post in flight gets 429; explorer refused', async () => {
    const s = await open()
    const info = await s.request({ method: 'post', id: 1, request: { type: 'info', payload: { type: 'l2Book', market_id: 2 } } }, ['post'])
    expect(info.data.id).toBe(1)
    expect(info.data.response.type).toBe('info')
    expect(info.data.response.payload.found).toBe(true)

    const seller = tradeSigner(devOwner(0).privateKey, sb.chainId)
    const order = JSON.parse(
      await seller.body({ type: 'order', market_id: '1', side: 'bid', order_type: 'limit', tif: 'gtc', price: '60000', quantity: '0.01' }),
    )
    const first = s.next((f) => f.channel === 'post' && f.data.id === 2)
    s.send({ method: 'post', id: 2, request: { type: 'action', payload: order } })
    const second = await s.request({ method: 'post', id: 3, request: { type: 'info', payload: { type: 'markets' } } }, ['post'])
    expect(second.data).toEqual({ id: 3, response: { type: 'error', payload: '429 Too many in-flight post requests' } })
    const placed = await first
    expect(placed.data.response.type).toBe('action')
    expect(placed.data.response.payload.submission_status).toBe('accepted')

    expect((await s.request({ method: 'post', id: 4, request: { type: 'explorer', payload: {} } }, ['post'])).data.response.payload).toBe(
      '400 explorer requests are not supported',
    )
    const bad = await s.request({ method: 'post', id: 5, request: { type: 'info', payload: { type: 'nope' } } }, ['post'])
    expect(bad.data.response).toEqual({ type: 'error', payload: '400 UnsupportedInfoType' })
  })

  it('flattens a 503 fault switched on through the admin endpoint', async () => {
    await postJson(`${sb.adminUrl}/faults`, { trading: { unavailable503: { count: 1 } } })
    const s = await open()
    const signer = tradeSigner(devOwner(0).privateKey, sb.chainId)
    const env = JSON.parse(await signer.body({ type: 'cancelAll', market_id: '1' }))
    const r = await s.request({ method: 'post', id: 9, request: { type: 'action', payload: env } }, ['post'])
    expect(r.data.response).toEqual({ type: 'error', payload: '503 Unavailable' })
  })
})

describe('socket faults from the admin endpoint', () => {
  it('silent socket, dropped frames, disconnect all', async () => {
    const s = await open()
    await postJson(`${sb.adminUrl}/faults`, { ws: { silent: true } })
    s.send({ method: 'ping' })
    await expect(s.channel('pong', 300)).rejects.toThrow()
    await postJson(`${sb.adminUrl}/faults`, { ws: { silent: false, dropProbability: 1 } })
    expect(await s.request({ method: 'ping' }, ['pong'])).toEqual({ channel: 'pong' })
    const r = await postJson(`${sb.adminUrl}/ws/disconnect`, {})
    expect(r.body.disconnected).toBeGreaterThanOrEqual(1)
    await s.waitClose()
    expect((await postJson(`${sb.adminUrl}/faults`, { ws: { dropProbability: 2 } })).status).toBe(400)
  })
})
