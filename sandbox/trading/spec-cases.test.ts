import { afterAll, describe, expect, it } from 'vitest'
import type { OrderAction, TradeAction } from '../../main/core/wire/actions'
import { addr, BTC, cloid, fund, info, makeService, ONE, send, sign, trade } from '../testing/test-kit'
import { MAX_FILLS_PER_ORDER } from './matching'
import type { TradingService } from './types'

/** Spec cases the sandbox produces on demand (faults set the way the admin endpoint sets them). */

const services: TradingService[] = []
afterAll(async () => {
  for (const s of services) await s.stop()
})
function fresh(): TradingService {
  const s = makeService()
  services.push(s)
  fund(s, 'alice')
  fund(s, 'bob')
  return s
}
const order = (side: 'bid' | 'ask', price: string, quantity: string, extra: Partial<OrderAction> = {}): OrderAction => ({
  type: 'order',
  market_id: '1',
  side,
  order_type: 'limit',
  tif: 'gtc',
  price,
  quantity,
  ...extra,
})

describe('injected transaction failure (txStatusByCloid `failed`)', () => {
  it('fails the write carrying the chosen cloid at execution, applies nothing, and reports `failed`', async () => {
    const s = fresh()
    s.faults.failTx = { cloid: cloid(7) }
    // another write passes untouched
    const other = await trade(s, 'alice', order('ask', '70000', '0.1', { cloid: cloid(6) }))
    expect(other.response?.type === 'order' && 'open' in other.response.status).toBe(true)
    const r = await trade(s, 'alice', order('ask', '70000', '0.1', { cloid: cloid(7) }))
    expect(r).toMatchObject({ submission_status: 'accepted', response: { type: 'order', status: { error: 'failed' } } })
    expect(r.tx_hash).toMatch(/^0x/)
    const st = await info(s, { type: 'txStatusByCloid', user: addr('alice'), cloid: cloid(7) })
    expect(st.body).toMatchObject({ found: true, status: 'failed', action_type: 'order' })
    // nothing rests for it, and the fault was one-shot
    expect((await info(s, { type: 'orderStatus', user: addr('alice'), market_id: 1, cloid: cloid(7) })).body.found).toBe(false)
    expect(s.faults.failTx).toBeNull()
  })

  it('without a cloid fails the next `count` writes', async () => {
    const s = fresh()
    s.faults.failTx = { count: 2 }
    const settle = { type: 'transfer' as const, to: addr('bob'), asset_id: '1', amount: '100', cloid: cloid(8) }
    expect((await trade(s, 'alice', settle)).response).toEqual({ type: 'default', status: { error: 'failed' } })
    expect(
      (await trade(s, 'alice', { type: 'batch', items: [order('ask', '70000', '0.1'), { type: 'cancelAll', market_id: '1' }] })).response,
    ).toEqual({
      type: 'batch',
      statuses: [
        { type: 'order', status: { error: 'failed' } },
        { type: 'cancelAll', statuses: [{ error: 'failed' }] },
      ],
    })
    expect((await trade(s, 'alice', { ...settle, cloid: cloid(9) })).response).toEqual({ type: 'default' })
  })
})

describe('envelope-level execution failures', () => {
  it('InvalidBatchLength hits the next batch only, with a tx_hash; a parse-time bad length stays EncodeLengthOverflow', async () => {
    const s = fresh()
    s.faults.envelopeFailure = { code: 'InvalidBatchLength', count: 1 }
    expect((await trade(s, 'alice', order('ask', '70000', '0.1'))).submission_status).toBe('accepted')
    const r = await trade(s, 'alice', { type: 'batch', items: [order('ask', '70001', '0.1')] })
    expect(r.submission_status).toBe('rejected')
    expect(r.error).toEqual({ code: 'InvalidBatchLength' })
    expect(r.tx_hash).toMatch(/^0x/)
    expect(s.faults.envelopeFailure).toBeNull()
    // no order was placed by the failed batch
    expect((await info(s, { type: 'openOrders', user: addr('alice'), market_id: 1 })).body.orders).toHaveLength(1)
    const env = await sign('alice', { type: 'batch', items: [{ type: 'cancelAll', market_id: '1' }] })
    const eleven = Array.from({ length: 11 }, () => ({ type: 'cancelAll', market_id: '1' }))
    const parse = (await send(s, { ...env, action: { type: 'batch', items: eleven } } as never)).body
    expect(parse.error?.code).toBe('EncodeLengthOverflow')
    expect(parse.tx_hash).toBeUndefined()
  })

  it('FeatureDisabled lands as rejected on any write', async () => {
    const s = fresh()
    s.faults.envelopeFailure = { code: 'FeatureDisabled' }
    expect(s.faults.envelopeFailure).toEqual({ code: 'FeatureDisabled' })
    s.faults.envelopeFailure = { code: 'FeatureDisabled', count: 1 }
    const r = await trade(s, 'alice', { type: 'cancelAll', market_id: '1' })
    expect(r).toMatchObject({ submission_status: 'rejected', error: { code: 'FeatureDisabled' } })
    expect((await trade(s, 'alice', { type: 'cancelAll', market_id: '1' })).submission_status).toBe('accepted')
  })
})

describe('null fee fields and vault_address', () => {
  it('fills before fee activation carry fee_asset_id and fee_mode null, and no feeToken on the socket', async () => {
    const s = fresh()
    s.faults.feesInactive = true
    await trade(s, 'alice', order('ask', '65000', '0.1'))
    await trade(s, 'bob', order('bid', '65000', '0.1'))
    const fills = (await info(s, { type: 'userFills', user: addr('bob'), limit: 10 })).body.fills
    expect(fills).toHaveLength(1)
    expect(fills[0]).toMatchObject({ fee_asset_id: null, fee_mode: null, fee: '0' })
    const ws = s.recentFills(addr('bob'))
    expect(ws[0]!.fee).toBe('0')
    expect('feeToken' in ws[0]!).toBe(false)
    // bob received the full 0.1 BTC: no fee was charged
    expect(s.balances(addr('bob')).find((b) => b.assetId === BTC)!.available).toBe(100n * ONE + 10_000_000n)
    s.faults.feesInactive = false
    await trade(s, 'alice', order('ask', '65000', '0.1'))
    await trade(s, 'bob', order('bid', '65000', '0.1'))
    const after = (await info(s, { type: 'userFills', user: addr('bob'), limit: 10 })).body.fills
    expect(after[1]).toMatchObject({ fee_asset_id: BTC, fee_mode: 'balance' })
  })

  it('withdraw records before vault payouts carry vault_address null', async () => {
    const s = fresh()
    s.faults.vaultPayoutsInactive = true
    const w = {
      type: 'withdraw' as const,
      asset_id: '1',
      amount: '500000000',
      dst_chain_id: '1',
      dst_address: addr('alice'),
      withdraw_nonce: '1',
      cloid: cloid(5),
    }
    expect((await trade(s, 'alice', w)).response).toEqual({ type: 'default' })
    s.faults.vaultPayoutsInactive = false
    expect((await trade(s, 'alice', { ...w, withdraw_nonce: '2' })).response).toEqual({ type: 'default' })
    const recs = (await info(s, { type: 'withdraws', user: addr('alice') })).body.withdraws
    expect(recs.map((r: { vault_address: string | null }) => r.vault_address === null)).toEqual([true, false])
  })
})

describe('fills per order: 100', () => {
  it('a resting order takes at most 100 fills; the 101st retires it as maxfillsexceeded and releases its hold', async () => {
    const s = fresh()
    const rest = await trade(s, 'alice', order('ask', '65000', '1', { cloid: cloid(1) }))
    const oid = rest.response?.type === 'order' && 'open' in rest.response.status ? rest.response.status.open.oid : -1
    for (let b = 0; b < MAX_FILLS_PER_ORDER / 10; b++) {
      const items: TradeAction[] = Array.from({ length: 10 }, () => order('bid', '65000', '0.001'))
      const r = await trade(s, 'bob', { type: 'batch', items } as TradeAction)
      expect(r.submission_status).toBe('accepted')
    }
    let st = (await info(s, { type: 'orderStatus', oid })).body
    expect(st).toMatchObject({ found: true, status: 'partiallyfilledresting', filled_qty: '0.1' })
    // the 101st: the resting order leaves the book, the incoming bid rests instead
    const r = await trade(s, 'bob', order('bid', '65000', '0.001', { cloid: cloid(2) }))
    expect(r.response).toMatchObject({ type: 'order', status: { open: { cloid: cloid(2) } } })
    st = (await info(s, { type: 'orderStatus', oid })).body
    expect(st).toMatchObject({ found: true, status: 'maxfillsexceeded', filled_qty: '0.1' })
    const btc = s.balances(addr('alice')).find((x) => x.assetId === BTC)!
    expect(btc.locked).toBe(0n)
    expect(btc.available).toBe(100n * ONE - 10_000_000n)
    expect((await info(s, { type: 'openOrders', user: addr('alice'), market_id: 1 })).body.orders).toHaveLength(0)
  })
})

describe('block height advance and the lookback window', () => {
  it('a transaction is found for 10000 blocks, then not found; block time does not jump', async () => {
    const s = fresh()
    await trade(s, 'alice', order('ask', '70000', '0.1', { cloid: cloid(3) }))
    const at = (await info(s, { type: 'txStatusByCloid', user: addr('alice'), cloid: cloid(3) })).body.block_height as number
    const before = s.head()
    s.advanceBlocks(at + 9_999 - s.head().height)
    expect(s.head().height).toBe(at + 9_999)
    expect(s.head().timeMs - before.timeMs).toBeLessThan(5_000)
    expect((await info(s, { type: 'txStatusByCloid', user: addr('alice'), cloid: cloid(3) })).body.found).toBe(true)
    s.advanceBlocks(1)
    const gone = (await info(s, { type: 'txStatusByCloid', user: addr('alice'), cloid: cloid(3) })).body
    expect(gone).toMatchObject({ found: false, status: null })
    // writes keep working after the jump
    expect((await trade(s, 'alice', { type: 'cancelAll', market_id: '1' })).submission_status).toBe('accepted')
    expect(() => s.advanceBlocks(0)).toThrow(/count/)
  })
})
