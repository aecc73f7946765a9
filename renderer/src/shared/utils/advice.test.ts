import { describe, expect, it } from 'vitest'
import { adviceFor, isUnresolved } from './advice'

describe('adviceFor', () => {
  it('tells the operator an Unavailable write never executed and is resent as the same bytes', () => {
    expect(adviceFor('Unavailable')).toMatch(/never executed/i)
    expect(adviceFor('Unavailable')).toMatch(/same signed bytes/)
  })
  it('tells the operator not to resubmit an unknown outcome', () => {
    for (const code of ['NodeUnreachable', 'Timeout', 'SomethingTimeout']) {
      expect(adviceFor(code)).toMatch(/outcome unknown/i)
      expect(adviceFor(code)).toMatch(/do not resubmit/i)
    }
  })
  it('covers the spec codes an operator meets', () => {
    expect(adviceFor('InsufficientSpotBalance')).toMatch(/available balance/)
    expect(adviceFor('InvalidSettle')).toMatch(/credit account/)
    expect(adviceFor('RateLimited')).toMatch(/retry delay/)
    expect(adviceFor('PlaceOrderSuspended')).toMatch(/only cancels/)
    expect(adviceFor('SpotCreditAccountFrozen')).toMatch(/frozen/)
    expect(adviceFor('insufficientspotcredit')).toMatch(/credit line/)
  })
  it('reads earn refusals by their message', () => {
    expect(adviceFor('EarnInvalid', 'withdrawal is not cancelable')).toMatch(/Claim it instead/)
    expect(adviceFor('EarnInvalid', 'withdrawals are paused')).toMatch(/cancelling still works/)
    expect(adviceFor('EarnInvalid', 'user asset already has an active withdrawal')).toMatch(/One withdrawal per account and asset/)
  })
  it('still says something for an unknown code', () => {
    expect(adviceFor('NeverSeenBefore')).toMatch(/journal/)
  })
})

describe('isUnresolved', () => {
  it('marks prepared, sent and unknown as unresolved', () => {
    expect(['prepared', 'sent', 'unknown'].every(isUnresolved)).toBe(true)
    expect(['accepted', 'rejected', 'reconciled'].some(isUnresolved)).toBe(false)
  })
})
