/**
 * Issue 30.7, halt first: while the desk is halted, every well-formed intent of a halted write kind
 * answers WritesHalted before anything the feature reads or validates, and so does its preview or
 * check (the CLI, the screens and an approver's review ask those first), with the vault unlocked or
 * locked. Only the contract's schema comes before it (a malformed request is not a write). Cancels,
 * revokes and the earn cancel stay open (a halt must clear the book). Every host reaches the core
 * through this one dispatcher (Electron IPC, the web host, the CLI); a full desk core on the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devOwner } from '../../../sandbox/scenario/dev-keys'
import { startDeskOnSandbox, TEST_PASSPHRASE, type DeskOnSandbox } from '../../testing/desk-on-sandbox'
import { WRITE_KINDS, type WriteKind } from './decision'
import { GUARDRAILS } from './guardrails'

const owner = (i: number) => devOwner(i).address.toLowerCase()
const STRANGER = '0x' + 'ab'.repeat(20)
/** A watch-only account: no owner key in the vault. */
const WATCH = '0x' + 'cd'.repeat(20)
/** One intent: its write kind, channel, arguments, and the code the feature refuses it with when not halted. */
type Case = [kind: WriteKind, channel: string, refused: string, args: unknown]

// owner(0) and owner(2) are balance-mode accounts, owner(3) and owner(4) credit accounts.
const settleFromBalance = { creditAccount: owner(0), cashAccount: owner(2), assetId: 3, amount: '0.01' }
const repayToBalance = { cashAccount: owner(2), creditAccount: owner(0), assetId: 1, amount: '1' }
const repayFromCredit = { cashAccount: owner(3), creditAccount: owner(4), assetId: 1, amount: '1' }
const badPrice = { account: owner(0), marketId: '2', side: 'bid', orderType: 'limit', tif: 'gtc', price: '0.0000001', quantity: '0.1' }
const noSuchClaim = { account: owner(1), operationId: `withdraw:${owner(1)}:999` }
const tooMuchEarn = { account: owner(0), assetId: 1, amount: '999999999', type: 'instant' }

/** Intents the feature refuses, one or more for every halted kind, through its writes, previews and checks. */
const INVALID: Case[] = [
  ['settle', 'settle.preview', 'InvalidSettle', settleFromBalance],
  ['settle', 'settle.submit', 'InvalidSettle', settleFromBalance],
  ['repay', 'repay.preview', 'InvalidMarginAccount', repayToBalance],
  ['repay', 'repay.submit', 'InvalidMarginAccount', repayToBalance],
  ['repay', 'repay.preview', 'InvalidRepay', repayFromCredit],
  ['repay', 'repay.submit', 'InvalidRepay', repayFromCredit],
  ['transfer', 'transfer.preview', 'ExcessPrecision', { from: owner(0), to: owner(2), assetId: 1, amount: '0.0000000001' }],
  ['transfer', 'transfer.preview', 'UnknownAsset', { from: owner(0), to: owner(2), assetId: 999, amount: '1' }],
  ['transfer', 'transfer.submit', 'TransferToSelf', { from: owner(0), to: owner(0), assetId: 1, amount: '1' }],
  ['transfer', 'transfer.submit', 'DestinationNotAllowed', { from: owner(0), to: STRANGER, assetId: 1, amount: '1' }],
  [
    'withdraw',
    'withdraw.preview',
    'UnknownAsset',
    { account: owner(0), assetId: 999, amount: '10', dstChainId: '1', dstAddress: STRANGER },
  ],
  [
    'withdraw',
    'withdraw.submit',
    'DestinationNotAllowed',
    { account: owner(0), assetId: 1, amount: '10', dstChainId: '1', dstAddress: STRANGER },
  ],
  ['activation', 'activate.submit', 'AccountAlreadyActivated', { account: owner(1), target: owner(2), feeAssetId: 1 }],
  ['agent_approve', 'agents.approve', 'AgentSlotOccupied', { owner: owner(0), slot: 0 }],
  ['agent_approve', 'agents.approve', 'OwnerKeyMissing', { owner: WATCH, slot: 1 }],
  ['agent_rotate', 'agents.rotate', 'OwnerKeyMissing', { owner: WATCH, slot: 0 }],
  ['earn_request', 'earn.preview', 'WithdrawAboveMaximum', tooMuchEarn],
  ['earn_request', 'earn.create', 'WithdrawAboveMaximum', tooMuchEarn],
  ['earn_claim', 'earn.claim', 'WithdrawalNotFound', noSuchClaim],
  ['order', 'orders.check', 'ExcessPrecision', badPrice],
  ['order', 'orders.place', 'ExcessPrecision', badPrice],
  ['order', 'orders.place', 'UnknownMarket', { ...badPrice, marketId: '999', price: '1' }],
]

/** Writes that stay open while halted, each with an intent the feature refuses for its own reason. */
const OPEN: Case[] = [
  ['cancel', 'orders.cancel', 'OrderNotOpen', { account: owner(0), marketId: '2', oid: '999999' }],
  ['agent_revoke', 'agents.revoke', 'AgentSlotEmpty', { owner: owner(2), slot: 3 }],
  ['earn_cancel', 'earn.cancel', 'EarnRejected', noSuchClaim],
]

describe('halt first: a halted desk answers WritesHalted before any validation, on every channel of every halted write kind', () => {
  let d: DeskOnSandbox
  const code = async (channel: string, args: unknown) => {
    const r = await d.core.dispatch(channel, args, { host: 'test' })
    return r.ok ? 'ok' : r.error.code
  }
  /** Each case's answer, by channel and the feature's refusal (every mismatch shows at once). */
  const answers = async (cases: Case[]) => {
    const out: Record<string, string> = {}
    for (const [, channel, refused, args] of cases) out[`${channel} (${refused})`] = await code(channel, args)
    return out
  }
  const each = (cases: Case[], answer: (refused: string) => string) =>
    Object.fromEntries(cases.map(([, channel, refused]) => [`${channel} (${refused})`, answer(refused)]))
  beforeAll(async () => {
    d = await startDeskOnSandbox()
    await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await d.call('accounts.importSandboxKeys')
    await d.call('accounts.watch', { address: WATCH, label: 'Watched' })
    d.autoConfirm()
  })
  afterAll(async () => {
    await d?.call('policy.resume', { passphrase: TEST_PASSPHRASE }).catch(() => {})
    await d?.close()
  })

  it('covers every write kind: each halted kind has intents here, each open kind too', () => {
    for (const kind of WRITE_KINDS) {
      if (kind === 'halt' || kind === 'resume') continue // the desk's own switches, not exchange writes
      const table = GUARDRAILS[kind].halt !== undefined ? INVALID : OPEN
      expect(
        table.some(([k]) => k === kind),
        kind,
      ).toBe(true)
    }
  })

  it('not halted, each intent is refused by the feature for its own reason (nothing is sent)', async () => {
    expect(await answers([...INVALID, ...OPEN])).toEqual(each([...INVALID, ...OPEN], (refused) => refused))
  })

  it('halted: every write, preview and check of a halted kind answers WritesHalted first', async () => {
    await d.call('policy.halt')
    expect(await answers(INVALID)).toEqual(each(INVALID, () => 'WritesHalted'))
  })

  it('halted with the vault locked: WritesHalted, not VaultLocked (unlocking would not help)', async () => {
    await d.call('vault.lock')
    try {
      expect(await answers(INVALID)).toEqual(each(INVALID, () => 'WritesHalted'))
    } finally {
      await d.call('vault.unlock', { passphrase: TEST_PASSPHRASE })
    }
  })

  it('halted: a malformed request still answers its schema error (not a write); cancels, revokes and the earn cancel stay open', async () => {
    expect(await code('settle.submit', { creditAccount: owner(0), cashAccount: owner(2), assetId: 3, amount: 'all of it' })).toBe(
      'InvalidArguments',
    )
    expect(await answers(OPEN)).toEqual(each(OPEN, (refused) => refused))
    expect(await code('orders.cancelEverything', { account: owner(0) })).toBe('ok')
    // The order ticket's live facts (book, tick, minimums) are a read, not a check of the write: the ticket shows the halt itself.
    expect(await code('orders.preview', { account: owner(0), marketId: '2', side: 'bid', price: '3000', quantity: '0.01' })).toBe('ok')
  })
})
