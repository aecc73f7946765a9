import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { RateScheduler } from '../exchange/scheduler'
import { InfoClient } from '../exchange/info/client'
import { ManualClock } from './testing/manual-clock'
import { StreamPool } from './pool'
import { fakeSockets } from './testing/fake-socket'
import { MockExchange } from './testing/mock-exchange'

/**
 * Issue 30 item 6: a socket that goes silent (no frames, no close) and speaks again before the
 * pong deadline has dropped what it had to send meanwhile. A fill of an account that then stays
 * quiet must still reach the desk's fills, through /info, without any state change to prompt it.
 */
const A = '0x00000000000000000000000000000000000000aa' // trades once, during the silence, then quiet
const B = '0x00000000000000000000000000000000000000bb' // busy: its frames are what end the silence
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

const wsFill = (tid: number) => ({
  coin: '1',
  px: '100',
  sz: '1',
  side: 'B',
  time: T0 + tid,
  oid: 7,
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
const bal = (user: string, usdc: string, btc: string) => ({
  user,
  balances: [
    { coin: 'USDC', token: 1, total: usdc, hold: '0' },
    { coin: 'BTC', token: 2, total: btc, hold: '0' },
  ],
})

/** The exchange's record: A's fills by tid (what /info answers). */
let truth: number[]
/** While set, /info fills reads fail (a body that is not JSON). */
let infoDown: boolean
const fillsReadsOf = (user: string) => ex.infoRequests.filter((r) => r.type === 'userFillsByTime' && r.user === user).length

function setup(reconcileIntervalMs: number) {
  truth = [1]
  infoDown = false
  ex.infoHandler = (b) => {
    if (b.type === 'openOrders') return { market_id: -1, orders: [], truncated: false }
    if (b.type !== 'userFillsByTime') return {}
    if (infoDown) return 'not json'
    const fills = b.user === A ? truth.map(infoFill) : []
    return { fills: fills.filter((f) => f.time >= (b.start_time_ms as number)) }
  }
  const fs = fakeSockets({ autoPong: true })
  pool = new StreamPool({
    wsUrl: 'ws://fake/ws',
    info: new InfoClient({ baseUrl: ex.httpUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }), transientRetries: 0 }),
    clock,
    random: () => 0.5,
    silenceMs: 1_000,
    pongTimeoutMs: 3_000,
    reconcileIntervalMs,
    createSocket: fs.factory,
    log: () => {},
  })
  const p = pool
  p.setAccounts([A, B].map((address) => ({ address, kind: 'balance' as const })))
  p.start()
  const s = fs.last()
  s.open()
  s.frame('spotState', bal(A, '1000', '1'))
  s.frame('userFills', { user: A, isSnapshot: true, fills: [wsFill(1)] })
  s.frame('spotState', bal(B, '500', '5'))

  /**
   * The socket goes silent: no pong, no push. A trades meanwhile (fill 2, and its balances); the
   * frames are lost. After 2 s, B's frames come again, before the 3 s pong deadline.
   */
  function silence(): void {
    s.autoPong = false
    clock.advance(1_000) // 1 s without a frame: the pool's ping goes out, and its pong is lost
    truth.push(2)
    clock.advance(1_000)
    s.autoPong = true
  }

  /** `ms` of clock in 500 ms steps: B's frames keep coming (on whichever socket is current), /info answers. */
  async function run(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 500) {
      const cur = fs.last()
      if (cur.readyState === 0) cur.open()
      cur.frame('spotState', bal(B, '500', '5'))
      clock.advance(500)
      await p.idle()
    }
  }
  return { p, s, silence, run }
}

describe('a fill lost while a socket was silent', () => {
  it('is read through /info once the missing pong is noticed, though the socket spoke again before the deadline and the account stays quiet', async () => {
    const { p, s, silence, run } = setup(60_000)
    expect(p.fills(A).map((f) => f.tid)).toEqual([1n])
    silence()
    // Three minutes: three sweeps, and A's state never changes again.
    await run(180_000)
    expect(p.fills(A).map((f) => f.tid)).toEqual([1n, 2n])
    expect(s.terminated).toBe(true) // the socket that lost frames was replaced
    expect(p.state(A).balances!.value[0]!.total).toBe('1000') // (A's balances frame was lost too: no state change to prompt a read)
  })

  it('a read the silence called for that fails is made up by the sweep, though the account never changes state', async () => {
    const { p, silence, run } = setup(10_000)
    silence()
    infoDown = true
    await run(5_000) // the pong deadline passes, the socket is replaced, its fills read fails
    expect(fillsReadsOf(A)).toBeGreaterThanOrEqual(1)
    expect(p.fills(A).map((f) => f.tid)).toEqual([1n])
    infoDown = false
    await run(20_000)
    expect(p.fills(A).map((f) => f.tid)).toEqual([1n, 2n])
    // Read once it worked; then A is quiet and costs nothing.
    const reads = fillsReadsOf(A)
    await run(60_000)
    expect(fillsReadsOf(A)).toBe(reads)
  })
})
