import { describe, expect, it } from 'vitest'
import type { InfoClient } from '../exchange/info/client'
import type { Lane } from '../exchange/scheduler'
import { LastKnownState } from './last-known'
import { memoryStateStore as memoryStore } from './testing/memory-state-store'
import { MarketDataCache } from './market-data'

/** An info client answering assets, marks and the oracle, recording each read and its lane. */
function fakeInfo(calls: { type: string; lane: Lane | undefined }[]): InfoClient {
  const rec = (type: string, lane?: Lane) => calls.push({ type, lane })
  return {
    assets: async (o?: { lane?: Lane }) => (
      rec('assets', o?.lane),
      { assets: [{ asset_id: 1, symbol: 'USDC', balance_decimals: 8, credit_ltv: 100 }] }
    ),
    markPrices: async (_: unknown, o?: { lane?: Lane }) => (
      rec('markPrices', o?.lane),
      [{ asset_id: 1, usd_atoms: 100_000_000n, source_ts_ms: Date.now() }]
    ),
    oracleStatus: async (o?: { lane?: Lane }) => (
      rec('oracleStatus', o?.lane),
      { oracle_status: { status: 'available', reason_code: null } }
    ),
  } as unknown as InfoClient
}

describe('MarketDataCache: a start needs only the marks and the oracle', () => {
  it('the first start reads the asset list and keeps it; the next start reads marks first and the list behind them', async () => {
    const store = memoryStore()
    const first: { type: string; lane: Lane | undefined }[] = []
    const a = new MarketDataCache(fakeInfo(first), { lastKnown: new LastKnownState(store, 'sandbox') })
    expect((await a.get('operator')).assets.get(1)?.symbol).toBe('USDC')
    expect(first.map((c) => c.type)).toEqual(['assets', 'markPrices', 'oracleStatus'])

    const next: { type: string; lane: Lane | undefined }[] = []
    const b = new MarketDataCache(fakeInfo(next), { lastKnown: new LastKnownState(store, 'sandbox') })
    const md = await b.get('operator')
    // Symbols and decimals from the earlier run: values can be shown without the asset read.
    expect(md.assets.get(1)).toEqual({ assetId: 1, symbol: 'USDC', decimals: 8, creditLtv: 100 })
    await new Promise((r) => setTimeout(r, 0))
    expect(next.map((c) => c.type)).toEqual(['markPrices', 'oracleStatus', 'assets'])
    expect(next.find((c) => c.type === 'assets')?.lane).toBe('background')
  })

  it('background refreshes of the marks go in the marks lane, ahead of per-account reads', async () => {
    const calls: { type: string; lane: Lane | undefined }[] = []
    let now = 1_000_000
    const c = new MarketDataCache(fakeInfo(calls), { now: () => now })
    await c.get('operator')
    now += 6_000 // past the 5 s TTL
    calls.length = 0
    await c.get('background')
    expect(calls.map((x) => x.lane)).toEqual(['marks', 'marks'])
    now += 6_000
    calls.length = 0
    await c.recent('operator') // served from the cache; refreshed behind it
    await new Promise((r) => setTimeout(r, 0))
    expect(calls.map((x) => `${x.type}:${x.lane}`)).toEqual(['markPrices:marks', 'oracleStatus:marks'])
  })
})
