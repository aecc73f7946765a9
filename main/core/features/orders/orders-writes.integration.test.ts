import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAgent } from '../../../../sandbox/scenario/dev-keys'
import { cancelAllInMarket, cancelOrder, emergencyCancelAll, placeOrder } from '../../../testing/direct-writes'
import { O0, startWriteSideOnSandbox, type WriteSideOnSandbox } from '../../../testing/write-side-on-sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { WriteSide } from '../../session'
import { checkOrderTicket, orderWrite } from './orders.service'

/**
 * Order writes against the sandbox: the ticket check, place with the agent key, cancels, the emergency cancel, a per-order failure.
 * Its own seeded sandbox and write side (main/testing/write-side-on-sandbox.ts).
 */
let t: WriteSideOnSandbox
beforeAll(async () => {
  t = await startWriteSideOnSandbox()
})
afterAll(async () => {
  await t?.stop()
})

describe('orders against the sandbox', () => {
  it('checks a ticket with the market precision and refuses extra decimals', async () => {
    await expect(
      checkOrderTicket(t.session.ctx, {
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
      checkOrderTicket(t.session.ctx, {
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
      checkOrderTicket(t.session.ctx, { account: O0, market: 99, side: 'bid', orderType: 'limit', tif: 'gtc', price: '1', quantity: '1' }),
    ).rejects.toMatchObject({ code: 'UnknownMarket' })
  })

  it('places with the agent key and its epoch, cancels by oid, cancels all, and the emergency cancel clears every market', async () => {
    const placed = await placeOrder(t.session.ctx, {
      account: O0,
      market: 1,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '40000',
      quantity: '0.01',
    })
    expect(placed.leaves[0]).toMatchObject({ kind: 'open' })
    const entry = t.journal.get(placed.outcome.journalId)!
    expect(entry.signer).toBe(devAgent(0).address.toLowerCase())
    expect(JSON.parse(entry.body).agent_epoch).toBeDefined()
    const oid = placed.leaves[0]!.kind === 'open' ? placed.leaves[0]!.oid : ''
    const c = await cancelOrder(t.session.ctx, { account: O0, market: 1, oid })
    expect(c.leaves[0]).toMatchObject({ kind: 'cancelled', oid })
    await placeOrder(t.session.ctx, {
      account: O0,
      market: 1,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '40001',
      quantity: '0.01',
    })
    const all = await cancelAllInMarket(t.session.ctx, { account: O0, market: 1 })
    expect(all.leaves.length).toBeGreaterThanOrEqual(1)
    expect(all.leaves.every((l) => l.kind === 'cancelled')).toBe(true)
    await placeOrder(t.session.ctx, {
      account: O0,
      market: 1,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '40002',
      quantity: '0.01',
    })
    const e = await emergencyCancelAll(t.session.ctx, { account: O0 })
    expect(e.markets.length).toBeGreaterThanOrEqual(1)
    expect(e.failures).toEqual([])
    expect(e.remaining).toEqual([])
  })

  it('reports a per-order failure from the leaf while the write is accepted', async () => {
    const r = await placeOrder(t.session.ctx, {
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

  it('an order the owner key signs carries the confirmation; an agent-signed one does not', async () => {
    const O2 = devOwner(2).address
    const ticket = { market: 1, side: 'bid' as const, orderType: 'limit' as const, tif: 'gtc' as const, price: '40000', quantity: '0.01' }
    const owner = await orderWrite({ ...ticket, account: O2 }).describe(t.session as unknown as WriteSide)
    if (owner.signing.channel !== 'trade') throw new Error('not a trade write')
    expect(owner.signing.request.signer.role).toBe('owner')
    expect(owner.signing.request.intent).toMatchObject({ action: 'order' })
    expect(owner.signing.request.intent!.summary.join('\n')).toMatch(/Order value: 400 \S+/)
    expect(owner.signing.request.intent!.summary.join('\n')).toMatch(/owner key/)
    const agent = await orderWrite({ ...ticket, account: O0 }).describe(t.session as unknown as WriteSide)
    if (agent.signing.channel !== 'trade') throw new Error('not a trade write')
    expect(agent.signing.request.signer.role).toBe('agent')
    expect(agent.signing.request.intent).toBeUndefined()
  })

  it("refuses an owner-key order without the operator's confirmation before signing or journaling (every host's submitter)", async () => {
    const O2 = devOwner(2).address
    const signaturesBefore = t.vault.signatures
    const entriesBefore = t.journal.list({}).length
    const order = { type: 'order' as const, market_id: '1', side: 'bid' as const, order_type: 'limit' as const, tif: 'gtc' as const }
    await expect(
      t.session.ctx.submitter.submit({
        account: O2,
        signer: { owner: O2, role: 'owner' },
        action: { ...order, price: '40000', quantity: '0.01' },
        summary: 'an owner-key order without a confirmation',
      }),
    ).rejects.toMatchObject({ code: 'ConfirmationRequired' })
    // a batch holding an order is an order too
    await expect(
      t.session.ctx.submitter.submit({
        account: O2,
        signer: { owner: O2, role: 'owner' },
        action: {
          type: 'batch',
          items: [
            { type: 'cancelAll', market_id: '1' },
            { ...order, price: '40000', quantity: '0.01' },
          ],
        },
        summary: 'a batch with an owner-key order',
      }),
    ).rejects.toMatchObject({ code: 'ConfirmationRequired' })
    expect(t.vault.signatures).toBe(signaturesBefore)
    expect(t.journal.list({}).length).toBe(entriesBefore)
    // A cancel signed by the owner key never asks (it only reduces exposure; the halt must not wait on a dialog).
    const c = await t.session.ctx.submitter.submit({
      account: O2,
      signer: { owner: O2, role: 'owner' },
      action: { type: 'cancelAll', market_id: '1' },
      summary: 'owner-key cancel-all',
    })
    expect(c.submission.state).toBe('accepted')
  })
})
