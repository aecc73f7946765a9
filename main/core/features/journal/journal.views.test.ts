import { describe, expect, it } from 'vitest'
import { openJournalFile } from '../../journal'
import { transferPreviewView } from '../settle-repay'
import { counterpartyOf, journalFilter, submissionView, writeOutcomeView } from './journal.views'

const A = '0x1111111111111111111111111111111111111111'

describe('write views', () => {
  it('reads the counterparty a signed body names (settle, repay, transfer, withdraw, activate, agent); none for orders', () => {
    const B = '0x2222222222222222222222222222222222222222'
    const body = (action: object) => JSON.stringify({ action, nonce: 1, signature: '0x00' })
    expect(counterpartyOf(body({ type: 'settle', asset_id: '3', amount: '5', cash_account: B, cloid: '0x1' }))).toBe(B)
    expect(counterpartyOf(body({ type: 'repay', asset_id: '3', amount: '5', margin_account: B, cloid: '0x1' }))).toBe(B)
    expect(counterpartyOf(body({ type: 'transfer', to: B, asset_id: '3', amount: '5', cloid: '0x1' }))).toBe(B)
    expect(counterpartyOf(body({ type: 'withdraw', dst_address: B, dst_chain_id: '1' }))).toBe(B)
    expect(counterpartyOf(body({ type: 'activateFor', target_address: B }))).toBe(B)
    expect(counterpartyOf(body({ type: 'approveAgent', slot_id: 0, agent: B }))).toBe(B)
    expect(counterpartyOf(body({ type: 'order', market_id: '2' }))).toBeNull()
    expect(counterpartyOf('not json')).toBeNull()
    expect(counterpartyOf(JSON.stringify({ to: 'nope' }))).toBeNull()
  })

  it('maps a journal entry and its history to the contract, `signed` as `prepared`', () => {
    let t = 10
    const j = openJournalFile(':memory:', { now: () => t++ })
    const s = j.record({
      channel: 'trade',
      key: '0x' + 'a'.repeat(32),
      network: 'sandbox',
      account: A,
      signer: A,
      actionType: 'order',
      summary: 'buy',
      nonce: '5',
      body: '{}',
    })
    expect(submissionView(j, s)).toMatchObject({
      id: String(s.id),
      cloid: '0x' + 'a'.repeat(32),
      state: 'prepared',
      history: [{ state: 'prepared', atMs: 10 }],
    })
    j.update(s.id, { state: 'sent' })
    j.update(s.id, { state: 'accepted', finalStatus: 'open' })
    const o = writeOutcomeView(
      j,
      { journalId: s.id, cloid: s.key, state: 'accepted', finalStatus: 'open', code: null, txHash: null, traceId: null },
      [
        { item: 0, kind: 'open', oid: '7', cloid: null },
        { item: 1, kind: 'error', code: 'tick' },
      ],
    )
    expect(o.submission.history.map((h) => h.state)).toEqual(['prepared', 'sent', 'accepted'])
    expect(o.leaves).toEqual([
      { kind: 'open', code: null, oid: '7' },
      { kind: 'error', code: 'tick', oid: null },
    ])
    j.closeNow()
  })

  it('maps the contract filter, unresolvedOnly meaning prepared, sent or unknown', () => {
    expect(journalFilter({ unresolvedOnly: true, sinceMs: 5, limit: 3 })).toEqual({
      state: ['signed', 'sent', 'unknown'],
      since: 5,
      limit: 3,
    })
    expect(journalFilter({ state: 'prepared', account: A })).toEqual({ state: 'signed', account: A })
  })

  it('shows a settle preview as the exact action and both sides of the effect', () => {
    const v = transferPreviewView(
      {
        kind: 'settle',
        from: A,
        to: '0x2222222222222222222222222222222222222222',
        asset: { assetId: 3, symbol: 'BTC', decimals: 8 },
        amount: '0.1',
        amountAtoms: '10000000',
        creditPosition: { account: A, before: '0.3', after: '0.2' },
        cashAvailable: { account: '0x2222222222222222222222222222222222222222', before: '1', after: '1.1' },
        credit: { status: 'active', availableUsdAtoms: '1', lastKnownAvailableUsdAtoms: '1' },
        notes: ['n'],
      },
      'sandbox',
    )
    expect(v.action).toEqual({
      type: 'settle',
      asset_id: '3',
      amount: '10000000',
      cash_account: '0x2222222222222222222222222222222222222222',
    })
    expect(v.effects.map((e) => [e.before, e.after])).toEqual([
      ['0.3', '0.2'],
      ['1', '1.1'],
    ])
    expect(v.warnings).toEqual(['n'])
  })
})
