import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cancelEarnWithdrawal, claimEarnWithdrawal, createEarnWithdrawal } from '../../../testing/direct-writes'
import { O0, O1, startWriteSideOnSandbox, type WriteSideOnSandbox } from '../../../testing/write-side-on-sandbox'
import { earnOverview, previewCreateWithdrawal } from './earn.service'

/**
 * Earn against the sandbox: balances, queue and paused state, create with the fee shown, cancel, claim.
 * Its own seeded sandbox and write side (main/testing/write-side-on-sandbox.ts).
 */
let t: WriteSideOnSandbox
beforeAll(async () => {
  t = await startWriteSideOnSandbox()
})
afterAll(async () => {
  await t?.stop()
})

describe('earn', () => {
  it('shows balances, queue and paused state; creates with the fee shown; cancels; claims', async () => {
    const ov = await earnOverview(t.session.earnCtx, O1)
    expect(ov.paused).toBe(false)
    const usdc = ov.assets.find((a) => a.symbol === 'USDC')!
    expect(usdc.activeOperationId).not.toBeNull()
    const seeded = ov.withdrawals.find((w) => w.operationId === usdc.activeOperationId)!
    expect(seeded.claimable).toBe(true)
    const claim = await claimEarnWithdrawal(t.session.earnCtx, { user: O1, operationId: seeded.operationId })
    expect(['authorizing', 'authorized', 'transferring', 'claimed']).toContain(claim.status)

    const ov0 = await earnOverview(t.session.earnCtx, O0)
    const active = ov0.assets.find((a) => a.symbol === 'USDC')!.activeOperationId!
    await expect(
      previewCreateWithdrawal(t.session.earnCtx, { user: O0, asset: 'USDC', amount: '100', type: 'instant' }),
    ).rejects.toMatchObject({ code: 'ActiveWithdrawalExists' })
    const c = await cancelEarnWithdrawal(t.session.earnCtx, { user: O0, operationId: active })
    expect(c.status).toBe('cancelled')
    const p = await previewCreateWithdrawal(t.session.earnCtx, { user: O0, asset: 'USDC', amount: '100', type: 'instant' })
    expect(p.fee).toBe('0.3')
    expect(p.net).toBe('99.7')
    await expect(
      previewCreateWithdrawal(t.session.earnCtx, { user: O0, asset: 'USDC', amount: '1.123456789', type: 'scheduled' }),
    ).rejects.toMatchObject({ code: 'ExcessPrecision' })
    const created = await createEarnWithdrawal(t.session.earnCtx, { user: O0, asset: 'USDC', amount: '100', type: 'instant' })
    expect(created.status).toBe('created')
    expect(t.journal.findByKey('sandbox', created.operationId, 'createWithdrawal')?.state).toBe('accepted')
  })
})
