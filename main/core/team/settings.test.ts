import { describe, expect, it } from 'vitest'
import { settingsAction, settingsChangeOf, settingsDirection, settingsKey, settingsKeyBase, settingsKind, settingsTitle } from './settings'
import { refuseGatedHalt } from './policy'

const ADD = { op: 'address.add' as const, label: 'cold', address: '0x52908400098527886E0F7030069857D2E4169EE7', chainId: '1' }

describe('guardrail settings changes as proposals', () => {
  it('keys a change the same on every desk, apart per change, network and count, within the cloid field', () => {
    const action = settingsAction(ADD, 'ann@desk-1')
    const k0 = settingsKey('sandbox', 'ex-1', action, 0)
    expect(k0).toMatch(/^settings:0x[0-9a-f]{32}:0$/)
    expect(settingsKey('sandbox', 'ex-1', settingsAction({ ...ADD }, 'ann@desk-1'), 0)).toBe(k0)
    expect(settingsKey('sandbox', 'ex-1', action, 1)).not.toBe(k0)
    expect(settingsKeyBase(settingsKey('sandbox', 'ex-1', action, 7))).toBe(settingsKeyBase(k0))
    expect(settingsKeyBase(settingsKey('mainnet', 'ex-1', action, 0))).not.toBe(settingsKeyBase(k0))
    expect(settingsKeyBase(settingsKey('sandbox', 'ex-1', settingsAction({ ...ADD, chainId: '2' }, 'ann@desk-1'), 0))).not.toBe(
      settingsKeyBase(k0),
    )
    expect(settingsKeyBase(settingsKey('sandbox', 'ex-1', settingsAction(ADD, 'bob@desk-2'), 0))).not.toBe(settingsKeyBase(k0))
    expect(k0.length).toBeLessThanOrEqual(100)
  })

  it('reads back exactly the change an action carries and nothing else', () => {
    expect(settingsChangeOf(settingsAction(ADD, 'd'))).toEqual({ ...ADD, desk: 'd' })
    expect(settingsChangeOf(settingsAction({ op: 'limit.set', name: 'max-order-usd', value: null }, 'd'))).toMatchObject({ value: null })
    expect(settingsChangeOf({ op: 'address.add', label: 'x', desk: 'd' })).toBeNull() // no address
    expect(settingsChangeOf({ op: 'halt', desk: 'd' })).toBeNull() // the halt is never a settings proposal
    expect(settingsChangeOf({ op: 'resume' })).toBeNull() // no desk
  })

  it('names the kind the policy judges and a readable title', () => {
    expect(settingsKind(ADD)).toBe('address_book')
    expect(settingsKind({ op: 'address.remove', label: 'cold' })).toBe('address_book')
    expect(settingsKind({ op: 'limit.set', name: 'withdraw-limit-usd', value: '10' })).toBe('limits')
    expect(settingsKind({ op: 'resume' })).toBe('resume')
    expect(settingsTitle({ op: 'limit.set', name: 'withdraw-limit-usd', value: null })).toBe('Limit withdraw-limit-usd: set to off')
  })

  it('names the direction a policy rule matches: an address added loosens, removed tightens; a limit change carries its own', () => {
    expect(settingsDirection(ADD)).toBe('loosen')
    expect(settingsDirection({ op: 'address.remove', label: 'cold' })).toBe('tighten')
    const raise = { op: 'limit.set', name: 'withdraw-limit-usd', value: '900', direction: 'loosen' } as const
    expect(settingsDirection(raise)).toBe('loosen')
    expect(settingsDirection({ op: 'limit.set', name: 'withdraw-limit-usd', value: '9' })).toBeUndefined()
    expect(settingsDirection({ op: 'resume' })).toBeUndefined()
    // It travels in the proposal's action and reads back; an unknown one is not a settings change.
    expect(settingsChangeOf(settingsAction(raise, 'd'))).toEqual({ ...raise, desk: 'd' })
    expect(settingsChangeOf({ ...settingsAction(raise, 'd'), direction: 'sideways' })).toBeNull()
    expect(settingsTitle(raise)).toBe('Limit withdraw-limit-usd: set to 900 (loosening)')
    expect(settingsTitle({ ...raise, value: '5', direction: 'tighten' })).toBe('Limit withdraw-limit-usd: set to 5 (tightening)')
  })

  it('refuses at authoring a rule that blocks or gates the halt; allow rules and rules without kinds pass', () => {
    expect(() => refuseGatedHalt([{ id: 'h', kinds: ['halt'], then: { effect: 'block' } }])).toThrow(
      expect.objectContaining({ code: 'TeamPolicyGatesHalt' }),
    )
    expect(() =>
      refuseGatedHalt([{ id: 'h', kinds: ['withdraw', 'halt'], then: { effect: 'approve', count: 1, roles: ['approver'] } }]),
    ).toThrow(/rule h would put approvals before the emergency halt/)
    expect(() =>
      refuseGatedHalt([
        { id: 'ok', kinds: ['halt'], then: { effect: 'allow' } },
        { id: 'all', then: { effect: 'approve', count: 1, roles: ['approver'] } },
      ]),
    ).not.toThrow()
  })
})
