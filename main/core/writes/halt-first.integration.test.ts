/**
 * Issue 30.7: while trading is halted, every write answers WritesHalted before the feature's own
 * validation, and so does its preview (the CLI and the screens preview first): a settle from an
 * account that is not a credit account, a repay to one that is not, a transfer to a stranger, an
 * order at a bad price. Cancels stay open (a halt must clear the book). A full desk core on the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../../sandbox/scenario/dev-keys'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../testing/desk-on-sandbox'

const owner = (i: number) => devOwner(i).address.toLowerCase()
const STRANGER = '0x' + 'ab'.repeat(20)

describe('halt first: every host hears WritesHalted before any validation', () => {
  let d: DeskOnSandbox
  beforeAll(async () => {
    d = await startDeskOnSandbox()
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    d.autoConfirm()
    await d.call('policy.halt')
  })
  afterAll(async () => {
    await d?.call('policy.resume', { passphrase: TEST_PASSPHRASE }).catch(() => {})
    await d?.close()
  })
  /** The refusal's code; a transfer or withdrawal preview names its policy refusal in its warnings instead of throwing. */
  const code = async (channel: string, args: unknown) => {
    const r = await d.core.dispatch(channel, args, { host: 'test' })
    if (!r.ok) return r.error.code
    const warnings = (r.value as { warnings?: string[] }).warnings ?? []
    const refusal = warnings.map((w) => /^Refused by policy \((\w+)\)/.exec(w)?.[1]).filter(Boolean)
    return refusal.length > 0 ? refusal.join(',') : 'ok'
  }

  it('writes and previews that the feature would refuse are refused as halted first', async () => {
    // owner(0) is a balance account: it cannot settle (InvalidSettle) nor be repaid (InvalidMarginAccount).
    const invalid: [string, unknown][] = [
      ['settle.preview', { creditAccount: owner(0), cashAccount: owner(2), assetId: 3, amount: '0.01' }],
      ['settle.submit', { creditAccount: owner(0), cashAccount: owner(2), assetId: 3, amount: '0.01' }],
      ['repay.preview', { cashAccount: owner(2), creditAccount: owner(0), assetId: 1, amount: '1' }],
      ['repay.submit', { cashAccount: owner(2), creditAccount: owner(0), assetId: 1, amount: '1' }],
      ['transfer.preview', { from: owner(0), to: STRANGER, assetId: 1, amount: '1' }],
      ['transfer.submit', { from: owner(0), to: STRANGER, assetId: 1, amount: '1' }],
      ['withdraw.preview', { account: owner(0), assetId: 1, amount: '10', dstChainId: '1', dstAddress: STRANGER }],
      ['withdraw.submit', { account: owner(0), assetId: 1, amount: '10', dstChainId: '1', dstAddress: STRANGER }],
      ['earn.preview', { account: owner(0), assetId: 1, amount: '999999999', type: 'instant' }],
      ['earn.create', { account: owner(0), assetId: 1, amount: '999999999', type: 'instant' }],
      [
        'orders.place',
        { account: owner(0), marketId: '2', side: 'bid', orderType: 'limit', tif: 'gtc', price: '0.0000001', quantity: '0.1' },
      ],
    ]
    for (const [channel, args] of invalid) expect(await code(channel, args), channel).toBe('WritesHalted')
    // A cancel still passes while halted.
    expect(await code('orders.cancelEverything', { account: owner(0) })).toBe('ok')
  })
})
