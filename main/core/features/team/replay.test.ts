import { describe, expect, it } from 'vitest'
import { STATE_OF, previewLines } from './replay'

describe("an approver's own reading of what a proposal acts on", () => {
  it("an earn create's preview gives the initiator's lines", () => {
    expect(previewLines({ type: 'scheduled', gross: '5', symbol: 'USDC', fee: '0', feeBps: 0, net: '5', waitSeconds: 120 }).lines).toEqual([
      'scheduled withdrawal of 5 USDC from the earn pool',
      'fee: 0 USDC (0 bps)',
      'you receive: 5 USDC',
      'claimable after 120 s; cancellable until then',
    ])
  })

  it('an API key slot and a withdrawal are read as they stand now, or said missing', () => {
    const owner = '0x1111111111111111111111111111111111111111'
    const slots = [
      { slot: 0, agent: null, epoch: null },
      { slot: 1, agent: '0x2222222222222222222222222222222222222222', epoch: '3' },
    ]
    expect(STATE_OF['agents.revoke']!.lines(slots, { owner, slot: 1 })).toEqual([
      `slot 1 of ${owner} holds 0x2222222222222222222222222222222222222222 now (epoch 3)`,
    ])
    expect(STATE_OF['agents.approve']!.lines(slots, { owner, slot: 0 })).toEqual([`slot 0 of ${owner} is empty now`])
    const op = `withdraw:${owner}:4`
    const overview = {
      withdrawals: [
        {
          operationId: op,
          type: 'scheduled',
          gross: '5',
          symbol: 'USDC',
          status: 'queued',
          claimableAt: Date.UTC(2026, 10, 27),
          canClaim: false,
          canCancel: true,
        },
      ],
    }
    expect(STATE_OF['earn.claim']!.lines(overview, { account: owner, operationId: op })).toEqual([
      `scheduled withdrawal ${op} of 5 USDC: queued now`,
      // The one time format: local 24-hour time with its zone, and how far off it is.
      expect.stringMatching(/^claimable: no \(from 2026-11-2[67] \d\d:\d\d:\d\d \S+ \(.+\)\); cancellable: yes$/),
    ])
    expect(STATE_OF['earn.cancel']!.lines({ withdrawals: [] }, { account: owner, operationId: op })).toEqual([
      `withdrawal ${op}: not among the account's active withdrawals now`,
    ])
  })
})
