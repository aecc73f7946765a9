import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { activateFor, transfer, withdraw } from '../../../testing/direct-writes'
import { O0, O1, O3, startWriteSideOnSandbox, type WriteSideOnSandbox } from '../../../testing/write-side-on-sandbox'

/**
 * Transfers, withdrawals and activateFor against the sandbox.
 * Its own seeded sandbox and write side (main/testing/write-side-on-sandbox.ts).
 */
let t: WriteSideOnSandbox
beforeAll(async () => {
  t = await startWriteSideOnSandbox()
})
afterAll(async () => {
  await t?.stop()
})

describe('transfers, withdraw, activateFor', () => {
  it('transfers between balance-mode accounts and refuses a credit recipient', async () => {
    const r = await transfer(t.session.ctx, { from: O0, to: O1, asset: 'USDC', amount: '12.5' })
    expect(r.amountAtoms).toBe('1250000000')
    expect(t.executedByCloid(r.outcome.cloid)).toHaveLength(1)
    await expect(transfer(t.session.ctx, { from: O0, to: O3, asset: 'USDC', amount: '1' })).rejects.toMatchObject({
      code: 'ActionNotAllowedForSpotCreditAccount',
    })
    await expect(transfer(t.session.ctx, { from: O0, to: O0, asset: 'USDC', amount: '1' })).rejects.toMatchObject({
      code: 'TransferToSelf',
    })
  })

  it('withdraws with a persisted business nonce', async () => {
    const tokens = await t.session.reads.withdrawMinimums()
    const key = [...tokens.keys()].find((k) => k.endsWith(':1'))!
    const chain = key.split(':')[0]!
    const r = await withdraw(t.session.ctx, { account: O0, asset: 'USDC', amount: '100', dstChainId: chain, dstAddress: O0 })
    expect(r.outcome.state).toBe('accepted')
    expect(t.journal.lastNonce('sandbox', O0, 'withdraw')).toBe(BigInt(r.withdrawNonce!))
  })

  it('activates a new account for exactly the protocol fee', async () => {
    const target = '0x00000000000000000000000000000000000a11ce' as Address
    const r = await activateFor(t.session.ctx, { from: O1, target, asset: 1 })
    expect(r.outcome.state).toBe('accepted')
    expect((await t.session.reads.accountExists(target)).found).toBe(true)
    await expect(activateFor(t.session.ctx, { from: O1, target, asset: 1 })).rejects.toMatchObject({ code: 'AccountAlreadyActivated' })
  })
})
