import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { startSandbox, type SandboxHandle } from '../../../sandbox/index'
import { devAgent, devOwner } from '../../../sandbox/scenario/dev-keys'
import { sandboxNetwork, type ResolvedNetwork } from '../config/networks'
import { InfoClient } from '../exchange/info/client'
import { RateScheduler } from '../exchange/scheduler'
import { type Journal } from '../journal'
import { openTempJournal } from '../journal/testing/temp-journal'
import { earnOverview, previewCreateWithdrawal } from './earn/earn.service'
import { checkOrderTicket } from './orders/orders.service'
import { previewRepay, previewSettle } from './settle-repay/settle-repay.service'
import { DevVault } from '../../testing/dev-vault'
import {
  activateFor,
  approveAgent,
  cancelAllInMarket,
  cancelEarnWithdrawal,
  cancelOrder,
  claimEarnWithdrawal,
  createEarnWithdrawal,
  emergencyCancelAll,
  placeOrder,
  repay,
  revokeAgent,
  rotateAgent,
  settle,
  transfer,
  withdraw,
} from '../../testing/direct-writes'
import { WriteSide } from '../session/write-side'

let sb: SandboxHandle
let journal: Journal
let session: WriteSide
const vault = new DevVault()
const O0 = devOwner(0).address as Address // balance-mode, agents in slots 0 and 2
const O1 = devOwner(1).address as Address // balance-mode, agent in slot 1, claimable earn withdrawal
const O3 = devOwner(3).address as Address // credit: long 0.3 BTC (asset 3), short 12000 USDC (asset 1)
const O5 = devOwner(5).address as Address // unfunded

beforeAll(async () => {
  // O0's seeded withdrawal must stay queued (cancelable) for the whole file; O1's is seeded claimable.
  sb = await startSandbox({ seed: true, blockMs: 20, botIntervalMs: 0, rateLimits: false, earnPendingSeconds: 600 })
  for (let i = 0; i <= 5; i++) vault.addOwner(devOwner(i).privateKey)
  vault.addAgent(O0, 0, devAgent(0).privateKey)
  vault.addAgent(O0, 2, devAgent(1).privateKey)
  vault.addAgent(O1, 1, devAgent(2).privateKey)
  journal = openTempJournal()
  const network: ResolvedNetwork = {
    ...sandboxNetwork(),
    tradingUrl: sb.tradingUrl,
    wsUrl: sb.wsUrl,
    earnUrl: sb.earnUrl,
  } as ResolvedNetwork
  const info = new InfoClient({ baseUrl: sb.tradingUrl, scheduler: new RateScheduler({ ratePerSec: 1000 }) })
  session = new WriteSide({ network, journal, vault, info, tradeScheduler: new RateScheduler({ ratePerSec: 1000 }) })
})

afterAll(async () => {
  await session?.stop()
  await journal?.close()
  await sb?.stop()
})

const executedByCloid = (cloid: string) => sb.trading.groundTruth().filter((t) => t.cloid === cloid)

describe('settle and repay against the sandbox', () => {
  it('previews a settle on both accounts, submits it once, and the service moves the amount', async () => {
    const p = await previewSettle(session.ctx, { from: O3, to: O0, asset: 'BTC', amount: '0.1' })
    expect(p.creditPosition).toEqual({ account: O3, before: '0.3', after: '0.2' })
    expect(Number(p.cashAvailable.after) - Number(p.cashAvailable.before)).toBeCloseTo(0.1)
    const r = await settle(session.ctx, { from: O3, to: O0, asset: 'BTC', amount: '0.1' })
    expect(r.outcome.state).toBe('accepted')
    expect(executedByCloid(r.outcome.cloid)).toHaveLength(1)
    expect(executedByCloid(r.outcome.cloid)[0]!.status).toBe('success')
    const after = await previewSettle(session.ctx, { from: O3, to: O0, asset: 'BTC', amount: '0.1' })
    expect(after.creditPosition.before).toBe('0.2')
  })

  it('refuses bad settles before signing: wrong direction, over-settle, excess precision, no long', async () => {
    const signed = vault.signatures
    await expect(previewSettle(session.ctx, { from: O0, to: O3, asset: 'BTC', amount: '0.1' })).rejects.toMatchObject({
      code: 'InvalidSettle',
    })
    await expect(previewSettle(session.ctx, { from: O3, to: O0, asset: 'BTC', amount: '5' })).rejects.toMatchObject({
      code: 'InvalidSettle',
    })
    await expect(previewSettle(session.ctx, { from: O3, to: O0, asset: 'BTC', amount: '0.000000001' })).rejects.toMatchObject({
      code: 'ExcessPrecision',
    })
    await expect(previewSettle(session.ctx, { from: O3, to: O0, asset: 'USDC', amount: '1' })).rejects.toMatchObject({
      code: 'InvalidSettle',
    })
    await expect(previewSettle(session.ctx, { from: O3, to: O5, asset: 'BTC', amount: '0.1' })).rejects.toMatchObject({
      code: 'InvalidCashAccount',
    })
    expect(vault.signatures).toBe(signed)
  })

  it('repays a short from a balance-mode account', async () => {
    const p = await previewRepay(session.ctx, { from: O0, to: O3, asset: 'USDC', amount: '100' })
    expect(p.creditPosition.before).toBe('-12000')
    expect(p.creditPosition.after).toBe('-11900')
    const r = await repay(session.ctx, { from: O0, to: O3, asset: 'USDC', amount: '100' })
    expect(r.outcome.state).toBe('accepted')
    expect(executedByCloid(r.outcome.cloid)).toHaveLength(1)
    await expect(previewRepay(session.ctx, { from: O0, to: O3, asset: 'USDC', amount: '999999' })).rejects.toMatchObject({
      code: 'InvalidRepay',
    })
    await expect(previewRepay(session.ctx, { from: O3, to: O3, asset: 'USDC', amount: '1' })).rejects.toMatchObject({
      code: 'InvalidRepay',
    })
  })
})

describe('orders against the sandbox', () => {
  it('checks a ticket with the market precision and refuses extra decimals', async () => {
    await expect(
      checkOrderTicket(session.ctx, {
        account: O0,
        market: 1,
        side: 'bid',
        orderType: 'limit',
        tif: 'gtc',
        price: '50000.123456789',
        quantity: '0.01',
      }),
    ).rejects.toMatchObject({
      code: 'ExcessPrecision',
    })
    await expect(
      checkOrderTicket(session.ctx, {
        account: O0,
        market: 1,
        side: 'bid',
        orderType: 'limit',
        tif: 'gtc',
        price: '1',
        quantity: '0.0001',
      }),
    ).rejects.toMatchObject({
      code: 'MinTradeSpotNtl',
    })
    await expect(
      checkOrderTicket(session.ctx, { account: O0, market: 99, side: 'bid', orderType: 'limit', tif: 'gtc', price: '1', quantity: '1' }),
    ).rejects.toMatchObject({ code: 'UnknownMarket' })
  })

  it('places with the agent key and its epoch, cancels by oid, cancels all, and the emergency cancel clears every market', async () => {
    const placed = await placeOrder(session.ctx, {
      account: O0,
      market: 1,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '40000',
      quantity: '0.01',
    })
    expect(placed.leaves[0]).toMatchObject({ kind: 'open' })
    const entry = journal.get(placed.outcome.journalId)!
    expect(entry.signer).toBe(devAgent(0).address.toLowerCase())
    expect(JSON.parse(entry.body).agent_epoch).toBeDefined()
    const oid = placed.leaves[0]!.kind === 'open' ? placed.leaves[0]!.oid : ''
    const c = await cancelOrder(session.ctx, { account: O0, market: 1, oid })
    expect(c.leaves[0]).toMatchObject({ kind: 'cancelled', oid })
    await placeOrder(session.ctx, { account: O0, market: 1, side: 'bid', orderType: 'limit', tif: 'gtc', price: '40001', quantity: '0.01' })
    const all = await cancelAllInMarket(session.ctx, { account: O0, market: 1 })
    expect(all.leaves.length).toBeGreaterThanOrEqual(1)
    expect(all.leaves.every((l) => l.kind === 'cancelled')).toBe(true)
    await placeOrder(session.ctx, { account: O0, market: 1, side: 'bid', orderType: 'limit', tif: 'gtc', price: '40002', quantity: '0.01' })
    const e = await emergencyCancelAll(session.ctx, { account: O0 })
    expect(e.markets.length).toBeGreaterThanOrEqual(1)
    expect(e.failures).toEqual([])
    expect(e.remaining).toEqual([])
  })

  it('reports a per-order failure from the leaf while the write is accepted', async () => {
    const r = await placeOrder(session.ctx, {
      account: O0,
      market: 1,
      side: 'bid',
      orderType: 'limit',
      tif: 'ioc',
      price: '1000',
      quantity: '0.5',
    })
    expect(r.outcome.state).toBe('accepted')
    expect(r.leaves[0]).toMatchObject({ kind: 'error', code: 'ioccancel' })
  })
})

describe('transfers, withdraw, activateFor', () => {
  it('transfers between balance-mode accounts and refuses a credit recipient', async () => {
    const r = await transfer(session.ctx, { from: O0, to: O1, asset: 'USDC', amount: '12.5' })
    expect(r.amountAtoms).toBe('1250000000')
    expect(executedByCloid(r.outcome.cloid)).toHaveLength(1)
    await expect(transfer(session.ctx, { from: O0, to: O3, asset: 'USDC', amount: '1' })).rejects.toMatchObject({
      code: 'ActionNotAllowedForSpotCreditAccount',
    })
    await expect(transfer(session.ctx, { from: O0, to: O0, asset: 'USDC', amount: '1' })).rejects.toMatchObject({ code: 'TransferToSelf' })
  })

  it('withdraws with a persisted business nonce', async () => {
    const tokens = await session.reads.withdrawMinimums()
    const key = [...tokens.keys()].find((k) => k.endsWith(':1'))!
    const chain = key.split(':')[0]!
    const r = await withdraw(session.ctx, { account: O0, asset: 'USDC', amount: '100', dstChainId: chain, dstAddress: O0 })
    expect(r.outcome.state).toBe('accepted')
    expect(journal.lastNonce('sandbox', O0, 'withdraw')).toBe(BigInt(r.withdrawNonce!))
  })

  it('activates a new account for exactly the protocol fee', async () => {
    const target = '0x00000000000000000000000000000000000a11ce' as Address
    const r = await activateFor(session.ctx, { from: O1, target, asset: 1 })
    expect(r.outcome.state).toBe('accepted')
    expect((await session.reads.accountExists(target)).found).toBe(true)
    await expect(activateFor(session.ctx, { from: O1, target, asset: 1 })).rejects.toMatchObject({ code: 'AccountAlreadyActivated' })
  })
})

describe('agents', () => {
  it('approves a fresh vault key into a free slot, rotates it without a gap, and revokes', async () => {
    const a = await approveAgent(session.ctx, { owner: O1, slot: 3 })
    expect(a.agent).toBe(vault.addressOf({ owner: O1, role: 'agent', slot: 3 }))
    expect(a.epoch).not.toBe('')
    const rot = await rotateAgent(session.ctx, { owner: O1, slot: 3 })
    expect(rot.inPlace).toBe(false)
    expect(rot.steps.map((x) => x.step)).toEqual(['generate', 'approve', 'verify-epoch', 'switch-signer', 'retire-old-key'])
    expect(rot.to.slot).not.toBe(3)
    expect(vault.addressOf({ owner: O1, role: 'agent', slot: 3 })).toBeNull()
    // Orders now go out under the new slot.
    const o = await placeOrder(session.ctx, {
      account: O1,
      market: 2,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '2000',
      quantity: '0.1',
    })
    expect(journal.get(o.outcome.journalId)!.signer).toBe(rot.to.agent)
    const rv = await revokeAgent(session.ctx, { owner: O1, slot: rot.to.slot })
    expect(rv.retired).toBe(rot.to.agent)
    await expect(approveAgent(session.ctx, { owner: O0, slot: 0 })).rejects.toMatchObject({ code: 'AgentSlotOccupied' })
  })

  it('refuses before signing what the exchange state shows must fail: revoking an empty slot, cancelling an order that is not open', async () => {
    const signed = vault.signatures
    const executed = sb.trading.groundTruth().length
    const entries = journal.list({}).length
    // O5 has no agent in any slot.
    await expect(revokeAgent(session.ctx, { owner: O5, slot: 2 })).rejects.toMatchObject({ code: 'AgentSlotEmpty' })
    // An order that filled or was cancelled is no longer open: its cancel would only be rejected.
    const o = await placeOrder(session.ctx, {
      account: O0,
      market: 2,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '1000',
      quantity: '0.1',
    })
    const leaf = o.leaves[0]
    expect(leaf?.kind).toBe('open')
    const gone = leaf?.kind === 'open' ? leaf.oid : ''
    await cancelOrder(session.ctx, { account: O0, market: 2, oid: gone })
    const afterFirst = { signed: vault.signatures, executed: sb.trading.groundTruth().length, entries: journal.list({}).length }
    await expect(cancelOrder(session.ctx, { account: O0, market: 2, oid: gone })).rejects.toMatchObject({ code: 'OrderNotOpen' })
    await expect(cancelOrder(session.ctx, { account: O0, market: 2, oid: '999999999' })).rejects.toMatchObject({ code: 'OrderNotOpen' })
    // Nothing more was signed, journaled or executed by the refused writes.
    expect({ signed: vault.signatures, executed: sb.trading.groundTruth().length, entries: journal.list({}).length }).toEqual(afterFirst)
    expect(afterFirst.entries - entries).toBe(2)
    expect(afterFirst.signed - signed).toBe(2)
    expect(afterFirst.executed - executed).toBe(2)
  })
})

describe('earn', () => {
  it('shows balances, queue and paused state; creates with the fee shown; cancels; claims', async () => {
    const ov = await earnOverview(session.earnCtx, O1)
    expect(ov.paused).toBe(false)
    const usdc = ov.assets.find((a) => a.symbol === 'USDC')!
    expect(usdc.activeOperationId).not.toBeNull()
    const seeded = ov.withdrawals.find((w) => w.operationId === usdc.activeOperationId)!
    expect(seeded.claimable).toBe(true)
    const claim = await claimEarnWithdrawal(session.earnCtx, { user: O1, operationId: seeded.operationId })
    expect(['authorizing', 'authorized', 'transferring', 'claimed']).toContain(claim.status)

    const ov0 = await earnOverview(session.earnCtx, O0)
    const active = ov0.assets.find((a) => a.symbol === 'USDC')!.activeOperationId!
    await expect(
      previewCreateWithdrawal(session.earnCtx, { user: O0, asset: 'USDC', amount: '100', type: 'instant' }),
    ).rejects.toMatchObject({ code: 'ActiveWithdrawalExists' })
    const c = await cancelEarnWithdrawal(session.earnCtx, { user: O0, operationId: active })
    expect(c.status).toBe('cancelled')
    const p = await previewCreateWithdrawal(session.earnCtx, { user: O0, asset: 'USDC', amount: '100', type: 'instant' })
    expect(p.fee).toBe('0.3')
    expect(p.net).toBe('99.7')
    await expect(
      previewCreateWithdrawal(session.earnCtx, { user: O0, asset: 'USDC', amount: '1.123456789', type: 'scheduled' }),
    ).rejects.toMatchObject({ code: 'ExcessPrecision' })
    const created = await createEarnWithdrawal(session.earnCtx, { user: O0, asset: 'USDC', amount: '100', type: 'instant' })
    expect(created.status).toBe('created')
    expect(journal.findByKey('sandbox', created.operationId, 'createWithdrawal')?.state).toBe('accepted')
  })
})
