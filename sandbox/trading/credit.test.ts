import { afterAll, describe, expect, it } from 'vitest'
import { CHAIN_IDS } from '../../main/core/wire/chains'
import { createTradingService } from './service'
import { addr, BTC, cloid, ETH, fund, info, makeService, ONE, send, sign, trade, USDC } from '../testing/test-kit'
import type { TradingService } from './types'

const services: TradingService[] = []
afterAll(async () => {
  for (const s of services) await s.stop()
})
const USD = 100_000_000n // usd_atoms scale

/** dave: credit account with a 10000 USD line; carol: a cash (balance-mode) account; bob: a market maker. */
function fresh(credit = 10_000n * USD): TradingService {
  const s = makeService()
  services.push(s)
  fund(s, 'bob')
  fund(s, 'carol')
  s.createCreditAccount(addr('dave'), credit)
  return s
}
const bid = (price: string, quantity: string, market = '1') => ({
  type: 'order' as const,
  market_id: market,
  side: 'bid' as const,
  order_type: 'limit' as const,
  tif: 'gtc' as const,
  price,
  quantity,
})
const avail = (s: TradingService, who: Parameters<typeof addr>[0], asset: number) =>
  s.balances(addr(who)).find((b) => b.assetId === asset)?.available ?? 0n

describe('credit account reads', () => {
  it('spotCreditAccount: credit line, available with LTV haircuts, whitelist; no line reports found false', async () => {
    const s = fresh()
    s.setCreditPosition(addr('dave'), BTC, ONE)
    s.setCreditPosition(addr('dave'), USDC, -5_000n * ONE)
    const r = (await info(s, { type: 'spotCreditAccount', user: addr('dave') })).body
    // 10000 + 1 BTC * 65000 * 80% - 5000 USDC * 1.00
    expect(r).toEqual({
      user: addr('dave'),
      found: true,
      status: 'active',
      credit_usd_atoms: String(10_000n * USD),
      available_usd_atoms: String(57_000n * USD),
      last_known_available_usd_atoms: String(57_000n * USD),
      credit_trading_whitelisted_market_ids: [],
    })
    expect((await info(s, { type: 'spotCreditAccount', user: addr('carol') })).body).toEqual({ user: addr('carol'), found: false })
    expect((await info(s, { type: 'spotCreditPositions', user: addr('carol') })).body.positions).toEqual([])
    expect(s.spotCreditState(addr('carol'))).toEqual({ user: addr('carol'), authorized: false, positions: [] })
    expect(s.spotCreditState(addr('dave'))).toMatchObject({ authorized: true, status: 'active', creditUsdAtoms: String(10_000n * USD) })
    expect(s.spotState(addr('dave')).balances).toEqual([])
  })

  it('stale marks: available_usd_atoms is null, last_known_available_usd_atoms still computed', async () => {
    const s = fresh()
    s.setCreditPosition(addr('dave'), BTC, ONE)
    s.faults.staleMarks = true
    const r = (await info(s, { type: 'spotCreditAccount', user: addr('dave') })).body
    expect(r.available_usd_atoms).toBeNull()
    expect(r.last_known_available_usd_atoms).toBe(String(62_000n * USD))
    s.faults.staleMarks = false
    s.setMark(BTC, 60_000n * USD, Date.now() - 3_600_000)
    expect((await info(s, { type: 'spotCreditAccount', user: addr('dave') })).body.available_usd_atoms).toBeNull()
  })

  it('a position asset that never had a mark nulls both values', async () => {
    const s = fresh()
    s.addAsset({ asset_id: 9, symbol: 'NEW', balance_decimals: 8, withdraw_fee_atoms: 0n, credit_ltv: 50 })
    s.setCreditPosition(addr('dave'), 9, ONE)
    const r = (await info(s, { type: 'spotCreditAccount', user: addr('dave') })).body
    expect(r.available_usd_atoms).toBeNull()
    expect(r.last_known_available_usd_atoms).toBeNull()
  })

  it('markPrices and oracleStatus', async () => {
    const s = fresh()
    const m = (await info(s, { type: 'markPrices', asset_ids: [3, 1] })).body.marks
    expect(m.map((x: { asset_id: number }) => x.asset_id)).toEqual([1, 3])
    expect(m[1]).toMatchObject({ asset_id: 3, usd_atoms: String(65_000n * USD), source_ts_ms: expect.any(Number) })
    expect((await info(s, { type: 'markPrices' })).body.marks).toHaveLength(4)
    expect((await info(s, { type: 'oracleStatus' })).body).toEqual({ oracle_status: { status: 'available' } })
    s.faults.oracleUnavailable = 'ProviderError'
    expect((await info(s, { type: 'oracleStatus' })).body).toEqual({
      oracle_status: { status: 'unavailable', reason_code: 'ProviderError' },
    })
  })
})

describe('credit trading', () => {
  it('a resting bid debits only the quote asset as pending exposure; a fill settles real deltas', async () => {
    const s = fresh()
    const r = await trade(s, 'dave', bid('65000', '0.1'))
    expect(r.response).toMatchObject({ status: { open: {} } })
    const pos = (await info(s, { type: 'spotCreditPositions', user: addr('dave') })).body.positions
    expect(pos).toEqual([
      {
        asset_id: USDC,
        symbol: 'USDC',
        actual_display: '0',
        actual_qty: '0',
        pending_exposure_display: '-6500',
        pending_exposure_qty: String(-6_500n * ONE),
      },
    ])
    expect((await info(s, { type: 'spotCreditAccount', user: addr('dave') })).body.available_usd_atoms).toBe(String(3_500n * USD))
    await trade(s, 'bob', { ...bid('65000', '0.1'), side: 'ask' })
    const after = (await info(s, { type: 'spotCreditPositions', user: addr('dave') })).body.positions
    // dave was the maker: 1 bps maker fee taken from the BTC he received
    expect(after).toEqual([
      {
        asset_id: USDC,
        symbol: 'USDC',
        actual_display: '-6500',
        actual_qty: String(-6_500n * ONE),
        pending_exposure_display: '0',
        pending_exposure_qty: '0',
      },
      {
        asset_id: BTC,
        symbol: 'BTC',
        actual_display: '0.09999',
        actual_qty: '9999000',
        pending_exposure_display: '0',
        pending_exposure_qty: '0',
      },
    ])
    const fills = (await info(s, { type: 'userFills', user: addr('dave'), limit: 5 })).body.fills
    expect(fills[0]).toMatchObject({ side: 'B', fee_mode: 'credit', fee_asset_id: BTC, fee: '0.00001' })
  })

  it('an order beyond the credit line closes as insufficientspotcredit with a status record', async () => {
    const s = fresh()
    const r = await trade(s, 'dave', { ...bid('65000', '1'), cloid: cloid(30) })
    expect(r).toMatchObject({ submission_status: 'accepted', response: { status: { error: 'insufficientspotcredit' } } })
    expect((await info(s, { type: 'orderStatus', user: addr('dave'), market_id: 1, cloid: cloid(30) })).body).toMatchObject({
      found: true,
      status: 'insufficientspotcredit',
    })
  })

  it('market gate: credit_trading false refuses, unless the market is whitelisted for the account', async () => {
    const s = fresh()
    expect((await trade(s, 'dave', bid('3200', '0.1', '2'))).response).toMatchObject({ status: { error: 'featuredisabled' } })
    s.createCreditAccount(addr('erin'), 10_000n * USD, { whitelistedMarketIds: ['2'] })
    expect((await trade(s, 'erin', bid('3200', '0.1', '2'))).response).toMatchObject({ status: { open: {} } })
    expect((await info(s, { type: 'spotCreditAccount', user: addr('erin') })).body.credit_trading_whitelisted_market_ids).toEqual(['2'])
  })

  it('admission: frozen account, unavailable oracle and missing marks refuse orders but not cancels', async () => {
    const s = fresh()
    s.faults.oracleUnavailable = 'StalePrice'
    expect((await trade(s, 'dave', bid('65000', '0.01'))).error?.code).toBe('OracleUnavailable')
    expect((await trade(s, 'dave', { type: 'cancelAll', market_id: '1' })).submission_status).toBe('accepted')
    s.faults.oracleUnavailable = null
    s.faults.staleMarks = true
    expect((await trade(s, 'dave', bid('65000', '0.01'))).error?.code).toBe('OracleMarkPriceMissing')
    s.faults.staleMarks = false
    s.freeze(addr('dave'))
    expect((await trade(s, 'dave', bid('65000', '0.01'))).error?.code).toBe('SpotCreditAccountFrozen')
    expect((await trade(s, 'dave', { type: 'cancel', market_id: '1', oid: '1' })).submission_status).toBe('accepted')
    expect((await info(s, { type: 'accountStatus', user: addr('dave') })).body.status).toBe('frozen')
  })
})

describe('settle', () => {
  const settle = (amount: bigint, cash: string, asset = BTC, n = 40) => ({
    type: 'settle' as const,
    asset_id: String(asset),
    amount: String(amount),
    cash_account: cash,
    cloid: cloid(n),
  })

  it('moves a long position into the cash account', async () => {
    const s = fresh()
    s.setCreditPosition(addr('dave'), BTC, ONE)
    const r = await trade(s, 'dave', settle(ONE / 2n, addr('carol')))
    expect(r).toMatchObject({ submission_status: 'accepted', response: { type: 'default' } })
    expect(avail(s, 'carol', BTC)).toBe(100n * ONE + ONE / 2n)
    expect(s.spotCreditState(addr('dave')).positions.find((p) => p.asset_id === BTC)?.actual_qty).toBe(String(ONE / 2n))
    expect((await info(s, { type: 'txStatusByCloid', user: addr('dave'), cloid: cloid(40) })).body).toMatchObject({
      found: true,
      action_type: 'settle',
      status: 'success',
    })
    expect((await info(s, { type: 'txStatusByCloid', user: addr('carol'), cloid: cloid(40) })).body.found).toBe(false)
  })

  it('reports InvalidSettle for every listed case', async () => {
    const s = fresh()
    s.createCreditAccount(addr('erin'), 0n)
    s.setCreditPosition(addr('dave'), BTC, ONE)
    expect((await trade(s, 'carol', settle(1n, addr('bob')))).error?.code).toBe('InvalidSettle') // signer not credit
    expect((await trade(s, 'dave', settle(1n, addr('alice')))).error?.code).toBe('InvalidSettle') // cash missing
    expect((await trade(s, 'dave', settle(1n, addr('erin')))).error?.code).toBe('InvalidSettle') // cash is credit
    expect((await trade(s, 'dave', settle(0n, addr('carol')))).error?.code).toBe('InvalidSettle') // zero
    expect((await trade(s, 'dave', settle(1n, addr('carol'), ETH))).error?.code).toBe('InvalidSettle') // no long
    expect((await trade(s, 'dave', settle(ONE + 1n, addr('carol')))).error?.code).toBe('InvalidSettle') // over-settle
  })

  it('SpotCreditAccountFrozen, OracleMarkPriceMissing (not for a full settle to zero), InsufficientSpotCredit', async () => {
    const s = fresh(0n)
    s.setCreditPosition(addr('dave'), BTC, ONE)
    s.freeze(addr('dave'))
    expect((await trade(s, 'dave', settle(1n, addr('carol')))).error?.code).toBe('SpotCreditAccountFrozen')
    s.unfreeze(addr('dave'))
    s.faults.staleMarks = true
    expect((await trade(s, 'dave', settle(ONE / 2n, addr('carol'), BTC, 41))).error?.code).toBe('OracleMarkPriceMissing')
    expect((await trade(s, 'dave', settle(ONE, addr('carol'), BTC, 42))).submission_status).toBe('accepted')
    s.faults.staleMarks = false
    // 1 BTC long (52000 after haircut) against a 50000 USDC short: 2000 available; settling 0.1 BTC leaves -3200
    s.setCreditPosition(addr('dave'), BTC, ONE)
    s.setCreditPosition(addr('dave'), USDC, -50_000n * ONE)
    expect((await trade(s, 'dave', settle(ONE / 10n, addr('carol'), BTC, 43))).error?.code).toBe('InsufficientSpotCredit')
    expect((await trade(s, 'dave', settle(ONE / 100n, addr('carol'), BTC, 44))).submission_status).toBe('accepted')
  })

  it('a settle proven invalid only at execution is accepted with an invalidsettle leaf and reported by txStatusByCloid', async () => {
    const s = createTradingService({ chainId: CHAIN_IDS.sandbox, blockMs: 0, rateLimits: false })
    services.push(s)
    s.deposit(addr('carol'), USDC, 10n * ONE)
    s.createCreditAccount(addr('dave'), 10_000n * USD)
    s.setCreditPosition(addr('dave'), BTC, ONE)
    const first = send(s, await sign('dave', settle((ONE * 3n) / 4n, addr('carol'), BTC, 50)))
    while (s.pendingCount() < 1) await new Promise((r) => setTimeout(r, 1))
    const second = send(s, await sign('dave', settle((ONE * 3n) / 4n, addr('carol'), BTC, 51)))
    while (s.pendingCount() < 2) await new Promise((r) => setTimeout(r, 1))
    s.produceBlock()
    expect((await first).body).toMatchObject({ submission_status: 'accepted', response: { type: 'default' } })
    expect((await second).body).toMatchObject({
      submission_status: 'accepted',
      response: { type: 'default', status: { error: 'invalidsettle' } },
    })
    expect((await info(s, { type: 'txStatusByCloid', user: addr('dave'), cloid: cloid(51) })).body).toMatchObject({
      found: true,
      status: 'invalidsettle',
      action_type: 'settle',
    })
  })
})

describe('repay', () => {
  const repay = (amount: bigint, margin: string, asset = USDC, n = 60) => ({
    type: 'repay' as const,
    asset_id: String(asset),
    amount: String(amount),
    margin_account: margin,
    cloid: cloid(n),
  })

  it('spends available balance to reduce a short, also on a frozen account (which stays frozen)', async () => {
    const s = fresh()
    s.setCreditPosition(addr('dave'), USDC, -500n * ONE)
    s.freeze(addr('dave'))
    const r = await trade(s, 'carol', repay(200n * ONE, addr('dave')))
    expect(r).toMatchObject({ submission_status: 'accepted', response: { type: 'default' } })
    expect(s.spotCreditState(addr('dave'))).toMatchObject({ status: 'frozen' })
    expect(s.spotCreditState(addr('dave')).positions[0]).toMatchObject({ asset_id: USDC, actual_qty: String(-300n * ONE) })
    expect(avail(s, 'carol', USDC)).toBe(1_000_000n * ONE - 200n * ONE)
    expect((await info(s, { type: 'txStatusByCloid', user: addr('carol'), cloid: cloid(60) })).body).toMatchObject({
      found: true,
      action_type: 'repay',
    })
    expect((await info(s, { type: 'txStatusByCloid', user: addr('dave'), cloid: cloid(60) })).body.found).toBe(false)
  })

  it('reports InvalidRepay for every listed case and InsufficientSpotBalance', async () => {
    const s = fresh()
    s.setCreditPosition(addr('dave'), USDC, -500n * ONE)
    s.setCreditPosition(addr('dave'), BTC, ONE)
    s.deposit(addr('erin'), USDC, 11n * ONE)
    expect((await trade(s, 'dave', repay(1n, addr('dave')))).error?.code).toBe('InvalidRepay') // signer is credit
    expect((await trade(s, 'carol', repay(1n, addr('alice')))).error?.code).toBe('InvalidRepay') // margin missing
    expect((await trade(s, 'carol', repay(1n, addr('bob')))).error?.code).toBe('InvalidRepay') // margin not credit
    expect((await trade(s, 'carol', repay(0n, addr('dave')))).error?.code).toBe('InvalidRepay') // zero
    expect((await trade(s, 'carol', repay(1n, addr('dave'), BTC))).error?.code).toBe('InvalidRepay') // no short
    expect((await trade(s, 'carol', repay(501n * ONE, addr('dave')))).error?.code).toBe('InvalidRepay') // over-repay
    expect((await trade(s, 'erin', repay(20n * ONE, addr('dave')))).error?.code).toBe('InsufficientSpotBalance')
  })
})
