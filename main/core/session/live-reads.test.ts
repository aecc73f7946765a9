import { describe, expect, it } from 'vitest'
import { DeskError } from '../errors/desk-error'
import type { InfoClient } from '../exchange/info/client'
import type { StreamPool } from '../streams/pool'
import type { LiveAccountState } from '../streams/live-state'
import { LiveAccountReads, withDataAge } from './live-reads'
import type { LastKnownState } from './last-known'
import type { MarketDataCache } from './market-data'

const USER = '0x' + 'a'.repeat(40)

/** A pool holding one account's balances received at `at`, streaming or not. */
function fakePool(at: number, streaming: boolean, clock: () => number = () => at): StreamPool {
  const state: LiveAccountState = {
    user: USER,
    balances: { at, value: [{ assetId: 1, coin: 'USDC', total: '10.5', locked: '0.5', available: null }] },
    credit: null,
    openOrders: {
      at,
      truncated: false,
      value: [{ marketId: '2', oid: 7n, cloid: null, side: 'B', price: '3000', origSz: '1', sz: '0.4', timestamp: at }],
    },
  }
  return {
    state: () => state,
    isLive: () => streaming,
    time: clock,
    // As the pool does: a /info answer becomes the live state, dated when it was asked for.
    noteBalances: (_u: string, rows: { assetId: number; available: string; locked: string }[], issuedAt: number) => {
      if (state.balances && state.balances.at > issuedAt) return
      state.balances = {
        at: issuedAt,
        value: rows.map((r) => ({ assetId: r.assetId, coin: null, total: null, locked: r.locked, available: r.available })),
      }
    },
  } as unknown as StreamPool
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

  it('after a write, one /info answer serves the next reads of a quiet account (no frame follows): no read per preview', async () => {
    let now = 1_000_000
    const calls: string[] = []
    let listener: (s: { network: string; account: string; body: string; channel?: string; state?: string }) => void = () => {}
    const r = new LiveAccountReads({
      info: fakeInfo('ok', calls),
      pool: fakePool(now - 100, true, () => now),
      market,
      now: () => now,
      writes: { network: 'sandbox', onChange: (l) => ((listener = l), () => {}) },
    })
    now += 10
    listener({ network: 'sandbox', account: USER, body: '{}', channel: 'trade', state: 'accepted' })
    now += 10
    expect(await r.balances(USER)).toEqual([{ assetId: 1, available: '1', locked: '0' }])
    for (let i = 0; i < 5; i++) {
      now += 1000
      expect(await r.balances(USER)).toEqual([{ assetId: 1, available: '1', locked: '0' }])
      // the account's mode is told by its balances, whatever the write
      expect((await r.creditLine(USER)).isCredit).toBe(false)
    }
    expect(calls).toEqual(['userBalances'])
  })

  it('only write steps that may move the account hold stream state back (not signing, refusals or earn writes)', async () => {
    let now = 1_000_000
    const calls: string[] = []
    let listener: (s: { network: string; account: string; body: string; channel?: string; state?: string }) => void = () => {}
    const r = new LiveAccountReads({
      info: fakeInfo('ok', calls),
      pool: fakePool(now - 100, true),
      market,
      now: () => now,
      writes: { network: 'sandbox', onChange: (l) => ((listener = l), () => {}) },
    })
    now += 10
    for (const [channel, state] of [
      ['trade', 'signed'],
      ['trade', 'rejected'],
      ['trade', 'failed'],
      ['earn', 'accepted'],
    ] as const)
      listener({ network: 'sandbox', account: USER, body: '{}', channel, state })
    await r.balances(USER)
    expect(calls).toEqual([])
    listener({ network: 'sandbox', account: USER, body: '{}', channel: 'trade', state: 'accepted' })
    await r.balances(USER)
    expect(calls).toEqual(['userBalances'])
  })

  it('at signing time, refuses with StaleData when the data a write was checked on is no longer current', async () => {
    let now = 1_000_000
    let streaming = true
    const state: LiveAccountState = {
      user: USER,
      balances: { at: now, value: [{ assetId: 1, coin: 'USDC', total: '10', locked: '0', available: null }] },
      credit: null,
      openOrders: null,
    }
    const pool = { state: () => state, isLive: () => streaming } as unknown as StreamPool
    const r = new LiveAccountReads({ info: fakeInfo('ok', []), pool, market, now: () => now })
    await r.balances(USER)
    // the confirmation dialog stays open two minutes while the stream still streams: current
    now += 120_000
    expect(() => r.assertFresh([USER, '0x' + 'c'.repeat(40)])).not.toThrow()
    // the stream stopped 40 s ago (its last frame then): over the 30 s limit
    streaming = false
    state.balances = { at: now - 40_000, value: state.balances!.value }
    const err = (() => {
      try {
        r.assertFresh([USER])
      } catch (e) {
        return e
      }
    })()
    expect(err).toMatchObject({ code: 'StaleData', details: { account: USER, ageMs: 40_000, limitMs: 30_000 } })
    // an account never read for the write (an external destination) is not judged
    expect(() => r.assertFresh(['0x' + 'c'.repeat(40)])).not.toThrow()
  })

  it('serves the credit whitelist from the last answer and refreshes it in the background', async () => {
    let now = 1_000_000
    const calls: string[] = []
    let whitelist = ['1']
    const state: LiveAccountState = {
      user: USER,
      balances: null,
      credit: { at: now, value: { authorized: true, status: 'active', creditUsdAtoms: 1_000n, positions: [] } },
      openOrders: null,
    }
    const info = {
      call: async (def: { type: string }) => {
        calls.push(def.type)
        return {
          found: true,
          status: 'active',
          credit_usd_atoms: 1_000n,
          available_usd_atoms: 1_000n,
          last_known_available_usd_atoms: 1_000n,
          credit_trading_whitelisted_market_ids: [...whitelist],
        }
      },
    } as unknown as InfoClient
    const md = {
      recent: async () => ({
        assets: new Map(),
        marks: new Map(),
        oracle: { status: 'available', reasonCode: null },
        fetchedAt: now,
        markStaleAfterMs: 60_000,
      }),
    } as unknown as MarketDataCache
    const r = new LiveAccountReads({
      info,
      pool: { state: () => state, isLive: () => true } as unknown as StreamPool,
      market: md,
      now: () => now,
    })
    expect((await r.creditLine(USER)).whitelistedMarketIds).toEqual(['1'])
    expect(calls).toEqual(['spotCreditAccount'])
    // past the minute: the last answer at once, a background read behind it
    now += 61_000
    whitelist = ['1', '2']
    expect((await r.creditLine(USER)).whitelistedMarketIds).toEqual(['1'])
    expect(calls).toEqual(['spotCreditAccount', 'spotCreditAccount'])
    await new Promise((res) => setTimeout(res, 0))
    expect((await r.creditLine(USER)).whitelistedMarketIds).toEqual(['1', '2'])
    expect(calls).toHaveLength(2)
  })

  it('serves the whitelist the last run knew before any /info answer, and refreshes it behind', async () => {
    const now = 1_000_000
    const calls: string[] = []
    const state: LiveAccountState = {
      user: USER,
      balances: null,
      credit: { at: now, value: { authorized: true, status: 'active', creditUsdAtoms: 1_000n, positions: [] } },
      openOrders: null,
    }
    const info = {
      call: async (def: { type: string }) => {
        calls.push(def.type)
        return { found: true, status: 'active', credit_usd_atoms: 1_000n, credit_trading_whitelisted_market_ids: ['4'] }
      },
    } as unknown as InfoClient
    const md = {
      recent: async () => ({
        assets: new Map(),
        marks: new Map(),
        oracle: { status: 'available', reasonCode: null },
        fetchedAt: now,
        markStaleAfterMs: 60_000,
      }),
    } as unknown as MarketDataCache
    const lastKnown = {
      load: () => ({ value: { tradingWhitelist: ['9'] }, fetchedAt: now - 120_000, ageMs: 120_000 }),
    } as unknown as LastKnownState
    const r = new LiveAccountReads({
      info,
      pool: { state: () => state, isLive: () => true } as unknown as StreamPool,
      market: md,
      now: () => now,
      lastKnown,
    })
    expect((await r.creditLine(USER)).whitelistedMarketIds).toEqual(['9'])
    await new Promise((res) => setTimeout(res, 0))
    expect(calls).toEqual(['spotCreditAccount'])
    expect((await r.creditLine(USER)).whitelistedMarketIds).toEqual(['4'])
  })
})
