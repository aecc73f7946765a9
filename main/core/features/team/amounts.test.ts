import { describe, expect, it } from 'vitest'
import type { Proposal } from '../../team'
import { NO_UNITS, actionShown, amountText, movedAtoms, type UnitsBook } from './amounts'

const proposal = (kind: string, action: Record<string, unknown>): Proposal => ({ kind, network: 'sandbox', action }) as unknown as Proposal

const units: UnitsBook = {
  of: (assetId, earn) => (assetId === 1 ? { symbol: 'USDC', decimals: earn ? 8 : 6 } : null),
}

describe('proposal amounts in asset units', () => {
  it('reads the asset and atoms of the kinds that move an amount, in the exchange or the earn pool units', () => {
    const w = proposal('withdraw', { type: 'withdraw', asset_id: 1, amount: '2500000000000' })
    expect(movedAtoms(w)).toEqual({ assetId: 1, atoms: 2_500_000_000_000n, earn: false })
    expect(amountText(w, units)).toBe('2,500,000 USDC')
    const e = proposal('earn_request', { type: 'createWithdrawal', asset_id: 1, amount: '1200000000' })
    expect(amountText(e, units)).toBe('12 USDC')
    expect(amountText(proposal('transfer', { asset_id: '1', amount: '1234567' }), units)).toBe('1.234567 USDC')
  })

  it('never shows atoms: an asset this desk cannot name is said so; writes without an amount have none', () => {
    const w = proposal('withdraw', { type: 'withdraw', asset_id: 7, amount: '2500000000000' })
    expect(amountText(w, units)).toBe('an amount of asset 7 (this desk cannot read its units on sandbox)')
    expect(amountText(proposal('withdraw', { asset_id: 1, amount: '2500000000000' }), NO_UNITS)).not.toMatch(/2500000000000/)
    expect(amountText(proposal('orders', { type: 'order', asset_id: 1, amount: '5' }), units)).toBeNull()
    expect(amountText(proposal('withdraw', { asset_id: 1, amount: '1.5' }), units)).toBeNull() // not atoms: not read as an amount
  })

  it('shows the exact action with its amount in units, every other field as signed', () => {
    const w = proposal('settle', { type: 'settle', asset_id: 1, amount: '5000000', cash_account: '0xabc' })
    expect(actionShown(w, units)).toEqual({ type: 'settle', asset_id: 1, amount: '5 USDC', cash_account: '0xabc' })
    expect((w.action as { amount: string }).amount).toBe('5000000') // the proposal itself is untouched
  })
})
