import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repay, settle } from '../../../testing/direct-writes'
import { O0, O3, O5, startWriteSideOnSandbox, type WriteSideOnSandbox } from '../../../testing/write-side-on-sandbox'
import { previewRepay, previewSettle } from './settle-repay.service'

/**
 * Settle and repay against the sandbox: previews on both accounts, one submission each, refusals before signing.
 * Its own seeded sandbox and write side (main/testing/write-side-on-sandbox.ts).
 */
let t: WriteSideOnSandbox
beforeAll(async () => {
  t = await startWriteSideOnSandbox()
})
afterAll(async () => {
  await t?.stop()
})

describe('settle and repay against the sandbox', () => {
  it('previews a settle on both accounts, submits it once, and the service moves the amount', async () => {
    const p = await previewSettle(t.session.ctx, { from: O3, to: O0, asset: 'BTC', amount: '0.1' })
    expect(p.creditPosition).toEqual({ account: O3, before: '0.3', after: '0.2' })
    expect(Number(p.cashAvailable.after) - Number(p.cashAvailable.before)).toBeCloseTo(0.1)
    const r = await settle(t.session.ctx, { from: O3, to: O0, asset: 'BTC', amount: '0.1' })
    expect(r.outcome.state).toBe('accepted')
    expect(t.executedByCloid(r.outcome.cloid)).toHaveLength(1)
    expect(t.executedByCloid(r.outcome.cloid)[0]!.status).toBe('success')
    const after = await previewSettle(t.session.ctx, { from: O3, to: O0, asset: 'BTC', amount: '0.1' })
    expect(after.creditPosition.before).toBe('0.2')
  })

  it('refuses bad settles before signing: wrong direction, over-settle, excess precision, no long', async () => {
    const signed = t.vault.signatures
    await expect(previewSettle(t.session.ctx, { from: O0, to: O3, asset: 'BTC', amount: '0.1' })).rejects.toMatchObject({
      code: 'InvalidSettle',
    })
    await expect(previewSettle(t.session.ctx, { from: O3, to: O0, asset: 'BTC', amount: '5' })).rejects.toMatchObject({
      code: 'InvalidSettle',
    })
    await expect(previewSettle(t.session.ctx, { from: O3, to: O0, asset: 'BTC', amount: '0.000000001' })).rejects.toMatchObject({
      code: 'ExcessPrecision',
    })
    await expect(previewSettle(t.session.ctx, { from: O3, to: O0, asset: 'USDC', amount: '1' })).rejects.toMatchObject({
      code: 'InvalidSettle',
    })
    await expect(previewSettle(t.session.ctx, { from: O3, to: O5, asset: 'BTC', amount: '0.1' })).rejects.toMatchObject({
      code: 'InvalidCashAccount',
    })
    expect(t.vault.signatures).toBe(signed)
  })

  it('repays a short from a balance-mode account', async () => {
    const p = await previewRepay(t.session.ctx, { from: O0, to: O3, asset: 'USDC', amount: '100' })
    expect(p.creditPosition.before).toBe('-12000')
    expect(p.creditPosition.after).toBe('-11900')
    const r = await repay(t.session.ctx, { from: O0, to: O3, asset: 'USDC', amount: '100' })
    expect(r.outcome.state).toBe('accepted')
    expect(t.executedByCloid(r.outcome.cloid)).toHaveLength(1)
    await expect(previewRepay(t.session.ctx, { from: O0, to: O3, asset: 'USDC', amount: '999999' })).rejects.toMatchObject({
      code: 'InvalidRepay',
    })
    await expect(previewRepay(t.session.ctx, { from: O3, to: O3, asset: 'USDC', amount: '1' })).rejects.toMatchObject({
      code: 'InvalidRepay',
    })
  })
})
