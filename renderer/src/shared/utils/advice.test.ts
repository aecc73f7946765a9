import { describe, expect, it } from 'vitest'
import * as shared from '../../../../main/contract/advice'
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

describe('one advice table', () => {
  it('the screens look advice up in the shared table (the one the core journals), not a copy', () => {
    expect(adviceFor).toBe(shared.adviceFor)
    for (const code of shared.adviceCodes()) expect(adviceFor(code)).toBe(shared.adviceForCode(code))
  })
  it('a fill-or-kill close says it may have traded, as the spec says, never that nothing traded', () => {
    expect(adviceFor('fokcancel')).toMatch(/may still have traded/)
    expect(adviceFor('fokcancel')).not.toMatch(/nothing traded/i)
  })
})

describe('isUnresolved', () => {
  it('marks prepared, sent and unknown as unresolved', () => {
    expect(['prepared', 'sent', 'unknown'].every(isUnresolved)).toBe(true)
    expect(['accepted', 'rejected', 'reconciled'].some(isUnresolved)).toBe(false)
  })
})
