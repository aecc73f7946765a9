/** Team views for the team screens' tests (fake-desk answers). */
import type {
  Address,
  TeamMembersView,
  TeamPolicyView,
  TeamProposalDetail,
  TeamProposalView,
  TeamStatusView,
} from '../../../../main/contract/types'

export const ME = '0xaaaa00000000000000000000000000000000aaaa' as Address
export const BOB = '0xbbbb00000000000000000000000000000000bbbb' as Address
export const CAROL = '0xcccc00000000000000000000000000000000cccc' as Address
export const PID = `0x${'ab'.repeat(32)}`

export function teamStatus(over: Partial<TeamStatusView> = {}): TeamStatusView {
  return {
    configured: true,
    state: 'live',
    detail: 'live',
    broken: null,
    store: { host: '127.0.0.1', port: 5544, database: 'team', user: 'desk', sslmode: 'disable' },
    teamId: `0x${'11'.repeat(32)}`,
    teamName: 'Ops',
    me: { address: ME, name: 'Alice', roles: ['admin', 'approver'] },
    chain: { length: 12, headSeq: '11', headDigest: `0x${'22'.repeat(32)}` },
    policyVersion: 2,
    needsMyApproval: 1,
    waitingOnOthers: 0,
    ...over,
  }
}

export function proposal(over: Partial<TeamProposalView> = {}): TeamProposalView {
  const now = Date.now()
  return {
    id: PID,
    seq: '9',
    status: 'open',
    network: 'sandbox',
    account: '0x1111111111111111111111111111111111111111',
    kind: 'withdraw',
    cloid: '0x0123456789abcdef0123456789abcdef',
    title: 'Withdraw 25,000 USDC to cold-1',
    usd: '25000',
    usdUnknown: null,
    amount: '25,000 USDC',
    destination: '0x3333333333333333333333333333333333333333',
    initiator: { address: BOB, name: 'Bob' },
    policyVersion: 2,
    rule: 'big-withdrawals',
    needs: { count: 2, roles: ['approver'] },
    approvals: [{ address: CAROL, name: 'Carol', at: now - 60_000, counts: true }],
    rejection: null,
    signed: null,
    outcome: null,
    at: now - 120_000,
    expiresAt: now + 3_600_000,
    canApprove: true,
    canReject: true,
    canExecute: false,
    mine: false,
    ...over,
  }
}

export function detail(over: Partial<TeamProposalDetail> = {}): TeamProposalDetail {
  return {
    ...proposal(),
    initiatorPreview: { title: 'Withdraw 25,000 USDC', lines: ['withdraw 25,000 USDC', 'balance after: 75,000 USDC'] },
    recomputed: {
      title: 'Withdraw 25,000 USDC',
      lines: ['withdraw 25,000 USDC', 'balance after: 70,000 USDC'],
      computedAt: Date.now(),
      usd: '25000',
    },
    recomputeError: null,
    names: {},
    custody: null,
    review: [
      { key: 'kind', label: 'Action', initiator: 'withdraw', mine: 'withdraw', state: 'same' },
      { key: 'amount', label: 'Amount', initiator: '25,000 USDC', mine: '25,000 USDC', state: 'same' },
      {
        key: 'destination',
        label: 'Destination',
        initiator: '0x52908400098527886e0f7030069857d2e4169ee7',
        mine: '0x52908400098527886e0f7030069857d2e4169ee7',
        state: 'same',
      },
      {
        key: 'usd',
        label: 'Value (USD)',
        initiator: '$25,000',
        mine: null,
        state: 'unreadable',
        note: 'this desk has no fresh mark for the asset now',
      },
    ],
    action: { type: 'withdraw', asset_id: 1, amount: '2500000000000' },
    actionShown: { type: 'withdraw', asset_id: 1, amount: '25,000 USDC' },
    channel: 'withdraw.submit',
    outcomes: [],
    ...over,
  }
}

/** A roster of two: me (an admin and approver) and Bob (a trader); admin quorum 1. */
export const teamMembers = (): TeamMembersView => ({
  adminQuorum: 1,
  members: [
    { address: ME, name: 'Alice', roles: ['admin', 'approver'], me: true },
    { address: BOB, name: 'Bob', roles: ['trader'], me: false },
  ],
})
/** Policy version 2: three rules, and the history of versions 1 and 2. */
export const teamPolicy = (): TeamPolicyView => ({
  version: 2,
  groups: {},
  names: {},
  rules: [
    { id: 'big-withdrawals', kinds: ['withdraw'], minUsd: '10000', then: { effect: 'approve', count: 2, roles: ['approver'] } },
    {
      id: 'limits-loosen',
      kinds: ['limits', 'address_book'],
      direction: 'loosen',
      then: { effect: 'approve', count: 1, roles: ['approver'] },
    },
    { id: 'rest', then: { effect: 'allow' } },
  ],
  history: [
    { version: 1, seq: '2', digest: `0x${'33'.repeat(32)}`, rules: [{ id: 'rest', then: { effect: 'allow' } }], groups: {} },
    { version: 2, seq: '5', digest: `0x${'44'.repeat(32)}`, rules: [], groups: {} },
  ],
})
