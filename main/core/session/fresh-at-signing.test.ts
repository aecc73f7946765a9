import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import type { TradeSigner } from '../exchange/trade/signer'
import { localTradeSigner } from '../exchange/trade/testing/local-signer'
import { TradeSubmitter } from '../exchange/trade/submitter'
import { openJournalFile, type Journal } from '../journal'
import type { InfoClient } from '../exchange/info/client'
import type { StreamPool } from '../streams/pool'
import type { LiveAccountState } from '../streams/live-state'
import type { TradeAction } from '../wire'
import { LiveAccountReads } from './live-reads'
import type { MarketDataCache } from './market-data'
import { freshAtSigning } from './write-side'

const owner = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const FROM = owner.address.toLowerCase()
const TO = '0x00000000000000000000000000000000000000c1'

let j: Journal
afterEach(() => j?.closeNow())

/**
 * A confirmation left open while the stream stopped: the write was checked on data that was
 * current then, and is refused at signing time with StaleData; nothing is journaled or sent.
 */
describe('freshAtSigning', () => {
  it('refuses a gated write whose data went stale while the confirmation was open; nothing journaled, nothing sent', async () => {
    let now = 1_700_000_000_000
    let streaming = true
    const state: LiveAccountState = {
      user: FROM,
      balances: { at: now, value: [{ assetId: 1, coin: 'USDC', total: '10', locked: '0', available: null }] },
      credit: null,
      openOrders: null,
    }
    const pool = { state: () => state, isLive: () => streaming } as unknown as StreamPool
    const reads = new LiveAccountReads({
      info: { call: async () => [] } as unknown as InfoClient,
      pool,
      market: {} as MarketDataCache,
      now: () => now,
    })
    await reads.balances(FROM) // what the transfer's checks read
    const local = localTradeSigner(() => owner)
    // The operator takes two minutes to approve; the stream dies meanwhile.
    const slowConfirm: TradeSigner = {
      authority: (ref) => local.authority(ref),
      sign: async (ref, req, intent) => {
        now += 120_000
        streaming = false
        return local.sign(ref, req, intent)
      },
    }
    j = openJournalFile(':memory:')
    const posts: string[] = []
    const submitter = new TradeSubmitter({
      network: 'sandbox',
      tradeUrl: 'http://127.0.0.1:1/trade',
      chainId: 424242,
      journal: j,
      signer: freshAtSigning(slowConfirm, () => reads),
      scheduler: { run: (_l, t) => t(), pauseFor: () => {} },
      post: (async (_u: string, body: string) => {
        posts.push(body)
        throw new Error('not reached')
      }) as never,
      now: () => now,
    })
    const action = { type: 'transfer', to: TO, asset_id: '1', amount: '100' } as TradeAction
    const intent = {
      action: 'transfer' as const,
      title: 'Transfer 1 USDC',
      summary: [],
      details: { counterparty: { name: '', address: TO } },
    }
    const err = await submitter
      .submit({
        account: FROM as `0x${string}`,
        signer: { owner: FROM as `0x${string}`, role: 'owner' },
        action,
        summary: 'transfer',
        intent,
      })
      .catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'StaleData', details: { account: FROM, limitMs: 30_000 } })
    expect(j.unresolved('sandbox')).toEqual([])
    expect(j.list({ network: 'sandbox' })).toEqual([])
    expect(posts).toEqual([])
  })
})
