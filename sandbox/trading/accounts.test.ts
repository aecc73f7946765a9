import { afterAll, describe, expect, it } from 'vitest'
import { addr, BTC, cloid, fund, info, makeService, ONE, trade, USDC } from '../testing/test-kit'
import type { TradingService } from './types'

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
const avail = (s: TradingService, who: Parameters<typeof addr>[0], asset: number) =>
  s.balances(addr(who)).find((b) => b.assetId === asset)?.available ?? 0n
const ZERO = '0x0000000000000000000000000000000000000000'

describe('account creation', () => {
  it('the first deposit creates the account and pays the 1.0 activation fee', async () => {
    const s = fresh()
    expect((await info(s, { type: 'accountStatus', user: addr('carol') })).body).toEqual({
      user: addr('carol'),
      found: false,
      status: null,
      account_index: null,
      account_type: null,
    })
    s.deposit(addr('carol'), USDC, 5n * ONE)
    expect(avail(s, 'carol', USDC)).toBe(4n * ONE)
    const st = (await info(s, { type: 'accountStatus', user: addr('carol') })).body
    expect(st).toMatchObject({ found: true, status: 'active', account_index: expect.any(Number), account_type: 'balance' })
    const dep = (await info(s, { type: 'deposits', user: addr('carol') })).body
    expect(dep.user).toBe(addr('carol'))
    expect(dep.deposits[0]).toMatchObject({ asset_id: USDC, amount_atoms: '500000000', activation_fee_atoms: '100000000' })
    expect(() => s.deposit(addr('dave'), BTC, ONE)).toThrow(/activation fee/)
  })

  it('userBalances reports available and locked per asset', async () => {
    const s = fresh()
    await trade(s, 'alice', { type: 'order', market_id: '1', side: 'ask', order_type: 'limit', tif: 'gtc', price: '65000', quantity: '1' })
    const b = (await info(s, { type: 'userBalances', user: addr('alice') })).body
    expect(b.balances).toEqual([
      { asset_id: USDC, symbol: 'USDC', available: '1000000', locked: '0', available_atoms: '100000000000000', locked_atoms: '0' },
      { asset_id: BTC, symbol: 'BTC', available: '99', locked: '1', available_atoms: '9900000000', locked_atoms: '100000000' },
    ])
    expect(await info(s, { type: 'userBalances', user: 'nobody' })).toMatchObject({
      status: 400,
      body: { error: { code: 'InvalidInfoRequest' } },
    })
  })
})

describe('transfer', () => {
  const t = (to: string, amount: string, asset = '1', n = 1) => ({
    type: 'transfer' as const,
    to,
    asset_id: asset,
    amount,
    cloid: cloid(n),
  })

  it('moves available balance between existing balance-mode accounts', async () => {
    const s = fresh()
    const r = await trade(s, 'alice', t(addr('bob'), String(5n * ONE), '1', 77))
    expect(r).toMatchObject({ submission_status: 'accepted', response: { type: 'default' } })
    expect(avail(s, 'bob', USDC)).toBe(1_000_005n * ONE)
    expect(avail(s, 'alice', USDC)).toBe(999_995n * ONE)
    expect((await info(s, { type: 'txStatusByCloid', user: addr('alice'), cloid: cloid(77) })).body).toMatchObject({
      found: true,
      status: 'success',
      action_type: 'transfer',
    })
  })

  it('reports every transfer error', async () => {
    const s = fresh()
    s.createCreditAccount(addr('dave'), 1000n * ONE)
    expect((await trade(s, 'alice', t(ZERO, '1'))).error?.code).toBe('InvalidTransfer')
    expect((await trade(s, 'alice', t(addr('bob'), '0'))).error?.code).toBe('InvalidTransfer')
    expect((await trade(s, 'alice', t(addr('alice'), '1'))).error?.code).toBe('TransferToSelf')
    expect((await trade(s, 'alice', t(addr('carol'), '1'))).error?.code).toBe('AccountNotFound')
    expect((await trade(s, 'carol', t(addr('alice'), '1'))).error?.code).toBe('AccountNotFound')
    expect((await trade(s, 'alice', t(addr('dave'), '1'))).error?.code).toBe('ActionNotAllowedForSpotCreditAccount')
    expect((await trade(s, 'dave', t(addr('alice'), '1'))).error?.code).toBe('ActionNotAllowedForSpotCreditAccount')
    expect((await trade(s, 'alice', t(addr('bob'), String(2_000_000n * ONE)))).error?.code).toBe('InsufficientSpotBalance')
  })
})

describe('activateFor', () => {
  const act = (target: string, asset = '1') => ({ type: 'activateFor' as const, asset_id: asset, target_address: target, cloid: cloid(3) })

  it('creates the target account for exactly 1.0 of asset 1 or 2, paid to the fee account', async () => {
    const s = fresh()
    const feeBefore = s.balances(s.feeAccount).find((b) => b.assetId === USDC)?.available ?? 0n
    expect((await trade(s, 'alice', act(addr('carol')))).submission_status).toBe('accepted')
    expect(avail(s, 'alice', USDC)).toBe(1_000_000n * ONE - ONE)
    expect(s.balances(s.feeAccount).find((b) => b.assetId === USDC)?.available).toBe(feeBefore + ONE)
    expect((await info(s, { type: 'accountStatus', user: addr('carol') })).body.found).toBe(true)
  })

  it('reports every activateFor error', async () => {
    const s = fresh()
    s.createCreditAccount(addr('dave'), 1000n * ONE)
    await trade(s, 'alice', { type: 'approveAgent', slot_id: 0, agent: addr('agent1') })
    s.deposit(addr('erin'), USDC, ONE + ONE / 2n)
    expect((await trade(s, 'alice', act(addr('carol'), '3'))).error?.code).toBe('InvalidActivationFeeAsset')
    expect((await trade(s, 'carol', act(addr('agent2')))).error?.code).toBe('AccountNotFound')
    expect((await trade(s, 'dave', act(addr('carol')))).error?.code).toBe('ActionNotAllowedForSpotCreditAccount')
    expect((await trade(s, 'alice', act(addr('bob')))).error?.code).toBe('AccountAlreadyActivated')
    expect((await trade(s, 'alice', act(addr('agent1')))).error?.code).toBe('AddressIsAgent')
    expect((await trade(s, 'alice', act(ZERO))).error?.code).toBe('InvalidAccountActivation')
    expect((await trade(s, 'erin', act(addr('carol')))).error?.code).toBe('InsufficientSpotBalance')
  })
})

describe('withdraw', () => {
  const w = (amount: string, wn: string, asset = '1') => ({
    type: 'withdraw' as const,
    asset_id: asset,
    amount,
    dst_chain_id: '1',
    dst_address: addr('alice'),
    withdraw_nonce: wn,
    cloid: cloid(5),
  })

  it('debits the amount, records the fee without deducting it, lists the record', async () => {
    const s = fresh()
    const r = await trade(s, 'alice', w(String(10n * ONE), '1700000000000'))
    expect(r).toMatchObject({ submission_status: 'accepted', response: { type: 'default' } })
    expect(avail(s, 'alice', USDC)).toBe(999_990n * ONE)
    const list = (await info(s, { type: 'withdraws', user: addr('alice') })).body
    expect(list.withdraws).toHaveLength(1)
    expect(list.withdraws[0]).toMatchObject({
      asset_id: USDC,
      amount_atoms: '1000000000',
      withdraw_fee_atoms: '100000000',
      withdraw_nonce: '1700000000000',
      vault_address: expect.stringMatching(/^0x/),
    })
    expect(await info(s, { type: 'withdraws' })).toMatchObject({ status: 400 })
  })

  it('rejects a retained business nonce (WithdrawDuplicateNonce); a failed withdraw does not burn it', async () => {
    const s = fresh()
    expect((await trade(s, 'alice', w(String(10n * ONE), '5000'))).submission_status).toBe('accepted')
    expect((await trade(s, 'alice', w(String(10n * ONE), '5000'))).error?.code).toBe('WithdrawDuplicateNonce')
    expect((await trade(s, 'alice', w(String(9_000_000n * ONE), '6000'))).error?.code).toBe('InsufficientSpotBalance')
    expect((await trade(s, 'alice', w(String(10n * ONE), '6000'))).submission_status).toBe('accepted')
  })

  it('refuses amounts not above the fee or below the minimum, and credit accounts', async () => {
    const s = fresh()
    s.createCreditAccount(addr('dave'), 1000n * ONE)
    expect((await trade(s, 'alice', w(String(ONE), '7000'))).error?.code).toBe('WithdrawAmountTooSmall')
    expect((await trade(s, 'alice', w(String(ONE + 1n), '7001'))).error?.code).toBe('WithdrawAmountTooSmall')
    expect((await trade(s, 'dave', w(String(10n * ONE), '7002'))).error?.code).toBe('ActionNotAllowedForSpotCreditAccount')
  })
})

describe('snapshot and restore', () => {
  it('a restored service has the same balances, books, orders, agents, nonces and fills, through a JSON round trip', async () => {
    const s = fresh()
    await trade(s, 'alice', { type: 'approveAgent', slot_id: 2, agent: addr('agent1') })
    await trade(s, 'alice', {
      type: 'order',
      market_id: '1',
      side: 'ask',
      order_type: 'limit',
      tif: 'gtc',
      price: '65000',
      quantity: '0.5',
      cloid: cloid(90),
    })
    await trade(s, 'bob', { type: 'order', market_id: '1', side: 'bid', order_type: 'limit', tif: 'gtc', price: '65000', quantity: '0.2' })
    const nonce = BigInt(Date.now()) + 5n
    await trade(s, 'bob', { type: 'cancelAll', market_id: '1' }, { nonce })
    const json = JSON.stringify(s.snapshot(), (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))
    const revived = JSON.parse(json, (_k, v) => (typeof v === 'string' && /^-?\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v))

    const r = makeService()
    services.push(r)
    r.restore(revived)
    for (const who of ['alice', 'bob'] as const) expect(r.balances(addr(who))).toEqual(s.balances(addr(who)))
    expect(r.l2Book('1')).toEqual(s.l2Book('1'))
    expect(r.head().height).toBe(s.head().height)
    expect((await info(r, { type: 'orderStatus', user: addr('alice'), market_id: 1, cloid: cloid(90) })).body).toMatchObject({
      status: 'partiallyfilledresting',
      filled_qty: '0.2',
    })
    expect((await info(r, { type: 'userAgents', user: addr('alice') })).body.agents[2].agent).toBe(addr('agent1'))
    expect(r.recentFills(addr('bob'))).toEqual(s.recentFills(addr('bob')))
    expect((await trade(r, 'bob', { type: 'cancelAll', market_id: '1' }, { nonce })).error?.code).toBe('BadNonce')
    // the restored book still matches and cancels
    const c = await trade(r, 'alice', { type: 'cancel', market_id: '1', cloid: cloid(90) })
    expect(c.response).toMatchObject({ status: { cancelled: { cloid: cloid(90) } } })
    expect(r.balances(addr('alice')).find((b) => b.assetId === BTC)?.locked).toBe(0n)
  })
})
