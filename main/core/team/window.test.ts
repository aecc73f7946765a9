import { describe, expect, it } from 'vitest'
import type { UnknownUsdReading } from './policy'
import type { Proposal } from './proposals'
import { WINDOW_MS, rollingWindowUsd } from './window'

const NOW = Date.UTC(2026, 10, 26, 12)
const ACC = '0x1111111111111111111111111111111111111111'

function p(o: Omit<Partial<Proposal>, 'id'> & { id: string }): Proposal {
  return {
    network: 'sandbox',
    exchange: 'x',
    account: ACC,
    usd: 100n,
    at: NOW - 1000,
    expiresAt: NOW + 3600_000,
    rejection: null,
    signed: null,
    outcomes: [],
    ...o,
  } as unknown as Proposal
}

const total = (list: Proposal[], usd: bigint | null = 10n, kind = 'agent_approve', reading?: UnknownUsdReading) =>
  rollingWindowUsd(
    { proposals: new Map(list.map((x) => [x.id, x])) },
    { kind, network: 'sandbox', exchange: 'x', account: ACC, usdAtoms: usd },
    NOW,
    reading,
  )

describe('rolling window USD', () => {
  it("adds the values recorded in the account's proposals of the last 24 h to this write's", () => {
    expect(total([p({ id: 'a' }), p({ id: 'b', usd: 50n })])).toBe(160n)
    expect(total([p({ id: 'a' })], null)).toBe(100n) // a write that moves no value adds nothing
  })

  it('leaves out other accounts and networks, proposals older than the window, and those that moved nothing', () => {
    const signed = { by: 'x', body: '', nonce: '1', seq: 1n, at: NOW }
    const list = [
      p({ id: 'other-account', account: '0x2222222222222222222222222222222222222222' }),
      p({ id: 'other-network', network: 'mainnet' }),
      p({ id: 'old', at: NOW - WINDOW_MS }),
      p({ id: 'rejected', rejection: { by: 'x', reason: 'no', at: NOW, seq: 1n } as never }),
      p({ id: 'expired-unsigned', expiresAt: NOW - 1 }),
      p({ id: 'not-executed', signed: signed as never, outcomes: [{ state: 'reconciled', finalStatus: 'notexecuted' } as never] }),
      p({ id: 'failed', signed: signed as never, outcomes: [{ state: 'failed', finalStatus: 'failed' } as never] }),
      p({ id: 'no-value', usd: null }),
    ]
    expect(total(list)).toBe(10n)
  })

  it('keeps what executed or may have: signed, accepted, unknown, unresolved', () => {
    const signed = { by: 'x', body: '', nonce: '1', seq: 1n, at: NOW } as never
    const list = [
      p({ id: 'signed', signed }),
      p({ id: 'accepted', signed, outcomes: [{ state: 'accepted', finalStatus: 'success' } as never] }),
      p({ id: 'unknown', signed, outcomes: [{ state: 'unknown', finalStatus: null } as never] }),
      p({ id: 'unresolved', signed, outcomes: [{ state: 'unresolved', finalStatus: 'unresolved' } as never] }),
    ]
    expect(total(list)).toBe(410n)
  })
})

describe('rolling window USD with a value the desk cannot price', () => {
  it("is unknown (null, the worst case) when this value-moving write's value is, never zero", () => {
    expect(total([p({ id: 'a' })], null, 'transfer')).toBeNull()
    expect(total([p({ id: 'a' })], null, 'agent_approve')).toBe(100n) // moves no value: adds nothing
  })

  it('is unknown when a counted value-moving proposal of the window recorded no value', () => {
    const unknown = p({ id: 'u', usd: null, kind: 'withdraw' } as never)
    expect(total([p({ id: 'a' }), unknown], 10n, 'transfer')).toBeNull()
    // Not counted (rejected): its unknown value does not matter.
    expect(
      total([p({ id: 'a' }), { ...unknown, rejection: { by: 'x', reason: 'no', seq: 1n, at: NOW } } as Proposal], 10n, 'transfer'),
    ).toBe(110n)
  })

  it("reads an unknown value as zero only under the older desks' reading (to verify the entries they wrote)", () => {
    const unknown = p({ id: 'u', usd: null, kind: 'withdraw' } as never)
    expect(total([p({ id: 'a' }), unknown], null, 'transfer', 'zero')).toBe(100n)
    expect(total([p({ id: 'a' }), unknown], 10n, 'transfer', 'zero')).toBe(110n)
    expect(total([p({ id: 'a' }), unknown], 10n, 'transfer', 'worst-case')).toBeNull()
  })
})
