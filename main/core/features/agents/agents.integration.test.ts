import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approveAgent, cancelOrder, placeOrder, revokeAgent, rotateAgent } from '../../../testing/direct-writes'
import { O0, O1, O5, startWriteSideOnSandbox, type WriteSideOnSandbox } from '../../../testing/write-side-on-sandbox'

/**
 * Agent keys against the sandbox: approve, rotate without a gap, revoke, and refusals before signing.
 * Its own seeded sandbox and write side (main/testing/write-side-on-sandbox.ts).
 */
let t: WriteSideOnSandbox
beforeAll(async () => {
  t = await startWriteSideOnSandbox()
})
afterAll(async () => {
  await t?.stop()
})

describe('agents', () => {
  it('approves a fresh vault key into a free slot, rotates it without a gap, and revokes', async () => {
    const a = await approveAgent(t.session.ctx, { owner: O1, slot: 3 })
    expect(a.agent).toBe(t.vault.addressOf({ owner: O1, role: 'agent', slot: 3 }))
    expect(a.epoch).not.toBe('')
    const rot = await rotateAgent(t.session.ctx, { owner: O1, slot: 3 })
    expect(rot.inPlace).toBe(false)
    expect(rot.steps.map((x) => x.step)).toEqual(['generate', 'approve', 'verify-epoch', 'switch-signer', 'retire-old-key'])
    expect(rot.to.slot).not.toBe(3)
    expect(t.vault.addressOf({ owner: O1, role: 'agent', slot: 3 })).toBeNull()
    // Orders now go out under the new slot.
    const o = await placeOrder(t.session.ctx, {
      account: O1,
      market: 2,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '2000',
      quantity: '0.1',
    })
    expect(t.journal.get(o.outcome.journalId)!.signer).toBe(rot.to.agent)
    const rv = await revokeAgent(t.session.ctx, { owner: O1, slot: rot.to.slot })
    expect(rv.retired).toBe(rot.to.agent)
    await expect(approveAgent(t.session.ctx, { owner: O0, slot: 0 })).rejects.toMatchObject({ code: 'AgentSlotOccupied' })
  })

  it('refuses before signing what the exchange state shows must fail: revoking an empty slot, cancelling an order that is not open', async () => {
    const signed = t.vault.signatures
    const executed = t.sb.trading.groundTruth().length
    const entries = t.journal.list({}).length
    // O5 has no agent in any slot.
    await expect(revokeAgent(t.session.ctx, { owner: O5, slot: 2 })).rejects.toMatchObject({ code: 'AgentSlotEmpty' })
    // An order that filled or was cancelled is no longer open: its cancel would only be rejected.
    const o = await placeOrder(t.session.ctx, {
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
    await cancelOrder(t.session.ctx, { account: O0, market: 2, oid: gone })
    const afterFirst = { signed: t.vault.signatures, executed: t.sb.trading.groundTruth().length, entries: t.journal.list({}).length }
    await expect(cancelOrder(t.session.ctx, { account: O0, market: 2, oid: gone })).rejects.toMatchObject({ code: 'OrderNotOpen' })
    await expect(cancelOrder(t.session.ctx, { account: O0, market: 2, oid: '999999999' })).rejects.toMatchObject({ code: 'OrderNotOpen' })
    // Nothing more was signed, journaled or executed by the refused writes.
    expect({ signed: t.vault.signatures, executed: t.sb.trading.groundTruth().length, entries: t.journal.list({}).length }).toEqual(
      afterFirst,
    )
    expect(afterFirst.entries - entries).toBe(2)
    expect(afterFirst.signed - signed).toBe(2)
    expect(afterFirst.executed - executed).toBe(2)
  })

  it('over 500 open orders (a truncated listing): a cancel is signed only for an order the exchange shows on its book, never for one in flight', async () => {
    const base = t.session.ctx.reads
    const reads = Object.assign(Object.create(base) as typeof base, {
      openOrders: async (u: string, m: number) => ({ ...(await base.openOrders(u, m)), truncated: true }),
      writeOpenOrders: undefined,
    })
    const ctx = { ...t.session.ctx, reads }
    const executed = t.sb.trading.groundTruth().length
    // An order id the exchange has not published (still in flight, or never placed): refused, nothing signed.
    await expect(cancelOrder(ctx, { account: O0, market: 2, oid: '999999998' })).rejects.toMatchObject({ code: 'OrderNotOpen' })
    expect(t.sb.trading.groundTruth()).toHaveLength(executed)
    // A resting order: its own status confirms it, and the cancel goes.
    const o = await placeOrder(t.session.ctx, {
      account: O0,
      market: 2,
      side: 'bid',
      orderType: 'limit',
      tif: 'gtc',
      price: '1000',
      quantity: '0.1',
    })
    const leaf = o.leaves[0]
    const oid = leaf?.kind === 'open' ? leaf.oid : ''
    const r = await cancelOrder(ctx, { account: O0, market: 2, oid })
    expect(r.outcome.state).toBe('accepted')
  })
})
