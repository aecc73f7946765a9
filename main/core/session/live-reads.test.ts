import { describe, expect, it } from 'vitest'
import { DeskError } from '../errors/desk-error'
import type { InfoClient } from '../exchange/info/client'
import type { StreamPool } from '../streams/pool'
import type { LiveAccountState } from '../streams/live-state'
import { LiveAccountReads, withDataAge } from './live-reads'
import type { MarketDataCache } from './market-data'

const USER = '0x' + 'a'.repeat(40)

/** A pool holding one account's balances received at `at`, streaming or not. */
function fakePool(at: number, streaming: boolean): StreamPool {
  const state: LiveAccountState = {
    user: USER,
    balances: { at, value: [{ assetId: 1, coin: 'USDC', total: '10.5', locked: '0.5', available: null }] },
    credit: null,
    openOrders: { at, truncated: false, value: [{ marketId: '2', oid: 7n, cloid: null, side: 'B', price: '3000', origSz: '1', sz: '0.4', timestamp: at }] },
  }
  return { state: () => state, isLive: () => streaming } as unknown as StreamPool
}

function fakeInfo(answer: 'fail' | 'ok', calls: string[]): InfoClient {
  return {
    call: async (def: { type: string }) => {
      calls.push(def.type)
      if (answer === 'fail') throw new DeskError('RateLimited', '/info is rate limited')
      return [{ asset_id: 1, available: '1', locked: '0' }]
    },
  } as unknown as InfoClient
}

const market = {} as MarketDataCache

describe('LiveAccountReads: streams first, /info for what is missing or old, StaleData past the limit', () => {
  it('reads balances and open orders from a streaming pool without any request, and states the age', async () => {
    let now = 1_000_000
    const calls: string[] = []
    const r = new LiveAccountReads({ info: fakeInfo('ok', calls), pool: fakePool(now - 50_000, true), market, now: () => now })
    expect(await r.balances(USER)).toEqual([{ assetId: 1, available: '10', locked: '0.5' }])
    expect((await r.openOrders(USER, 2)).orders).toEqual([{ oid: '7', cloid: null, marketId: 2, remainingQty: '0.4' }])
    expect((await r.openOrders(USER, 1)).orders).toEqual([])
    expect(calls).toEqual([])
    // streaming: current as of now
    expect(r.dataAgeMs([USER])).toBe(0)
    const view = withDataAge({ reads: r }, { effects: [{ account: USER }] })
    expect(view).toMatchObject({ dataAgeMs: 0, dataMaxAgeMs: 30_000 })
    now += 1
  })

  it('uses recent state of a quiet socket with its age; re-reads old state through /info', async () => {
    const now = 1_000_000
    const calls: string[] = []
    const recent = new LiveAccountReads({ info: fakeInfo('ok', calls), pool: fakePool(now - 12_000, false), market, now: () => now })
    await recent.balances(USER)
    expect(recent.dataAgeMs([USER])).toBe(12_000)
    expect(calls).toEqual([])
    const old = new LiveAccountReads({ info: fakeInfo('ok', calls), pool: fakePool(now - 45_000, false), market, now: () => now })
    expect(await old.balances(USER)).toEqual([{ assetId: 1, available: '1', locked: '0' }])
    expect(calls).toEqual(['userBalances'])
    expect(old.dataAgeMs([USER])).toBe(0)
  })

  it('refuses with StaleData naming the age and the limit when old state cannot be refreshed', async () => {
    const now = 1_000_000
    const r = new LiveAccountReads({ info: fakeInfo('fail', []), pool: fakePool(now - 45_000, false), market, now: () => now })
    const err = await r.balances(USER).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(DeskError)
    expect(err).toMatchObject({ code: 'StaleData', details: { ageMs: 45_000, limitMs: 30_000 } })
    expect((err as Error).message).toMatch(/45 s old, over the 30 s limit/)
  })

  it('does not use stream state from before the account was last written to (its frame may still be on the way)', async () => {
    let now = 1_000_000
    const calls: string[] = []
    let listener: (s: { network: string; account: string; body: string }) => void = () => {}
    const r = new LiveAccountReads({
      info: fakeInfo('ok', calls),
      pool: fakePool(now - 100, true),
      market,
      now: () => now,
      writes: { network: 'sandbox', onChange: (l) => ((listener = l), () => {}) },
    })
    now += 10
    listener({ network: 'sandbox', account: '0x' + 'b'.repeat(40), body: JSON.stringify({ action: { destination: USER } }) })
    await r.balances(USER)
    expect(calls).toEqual(['userBalances'])
  })
})
