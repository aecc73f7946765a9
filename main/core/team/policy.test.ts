import { describe, expect, it } from 'vitest'
import { USD_DECIMALS as DESK_USD_DECIMALS } from '../session/valuation'
import { USD_DECIMALS, evaluate, judgedUsd, policyFromPayload, unknownUsdNote, usdReadingOf, type Intent } from './policy'

const ACC = '0x1111111111111111111111111111111111111111'
const DEST = '0x2222222222222222222222222222222222222222'
const rules = policyFromPayload(
  {
    version: 1,
    rules: [
      {
        id: 'no-withdraw-unknown',
        kinds: ['withdraw'],
        destinations: [DEST],
        minUsd: '50000',
        then: { effect: 'approve', count: 2, roles: ['approver', 'admin'] },
      },
      { id: 'withdraw-small', kinds: ['withdraw'], destinations: [DEST], then: { effect: 'approve', count: 1, roles: ['approver'] } },
      { id: 'window', kinds: ['settle', 'repay'], accounts: [ACC], minWindowUsd: '1000000.5', then: { effect: 'block' } },
      { id: 'moves', kinds: ['settle', 'repay'], then: { effect: 'allow' } },
    ],
  },
  0,
).rules

const intent = (o: Partial<Intent>): Intent => ({ kind: 'withdraw', account: ACC, usd: 0n, windowUsd: 0n, ...o })

describe('policy evaluation (first match wins, default deny)', () => {
  it("reads USD in the desk's USD atoms (8 decimals, as the write pipeline hands them over)", () => {
    expect(USD_DECIMALS).toBe(DESK_USD_DECIMALS)
    const [r] = policyFromPayload({ version: 1, rules: [{ id: 'x', minUsd: '0.00000001', then: { effect: 'allow' } }] }, 0).rules
    expect(r!.minUsd).toBe(1n)
  })

  it('picks the first matching rule by kind, destination and amount', () => {
    expect(evaluate(rules, intent({ destination: DEST, usd: 50_000_00000000n }))).toEqual({
      effect: 'approve',
      count: 2,
      roles: ['approver', 'admin'],
      rule: 'no-withdraw-unknown',
    })
    expect(evaluate(rules, intent({ destination: DEST, usd: 49_999_99999999n }))).toMatchObject({ rule: 'withdraw-small', count: 1 })
    expect(evaluate(rules, intent({ destination: '0x3333333333333333333333333333333333333333', usd: 1n }))).toEqual({
      effect: 'block',
      rule: null,
      reason: 'no rule matches',
    })
  })

  it('blocks on the rolling window total for the listed account only', () => {
    expect(evaluate(rules, intent({ kind: 'settle', windowUsd: 1_000_000_50000000n }))).toEqual({ effect: 'block', rule: 'window' })
    expect(evaluate(rules, intent({ kind: 'settle', windowUsd: 1_000_000_49999999n }))).toEqual({ effect: 'allow', rule: 'moves' })
    expect(evaluate(rules, intent({ kind: 'repay', account: DEST, windowUsd: 9_000_000_00000000n }))).toEqual({
      effect: 'allow',
      rule: 'moves',
    })
  })

  it('refuses malformed rules with a typed error', () => {
    expect(() =>
      policyFromPayload({ version: 1, rules: [{ id: 'x', then: { effect: 'approve', count: 0, roles: ['approver'] } }] }, 0),
    ).toThrow(/count/)
    expect(() => policyFromPayload({ version: 1, rules: [{ id: 'x', kinds: ['launch'], then: { effect: 'allow' } }] }, 0)).toThrow(
      /unknown action kind/,
    )
    expect(() => policyFromPayload({ version: 1, rules: [{ id: 'x', minUsd: '1.000000001', then: { effect: 'allow' } }] }, 0)).toThrow()
    expect(() =>
      policyFromPayload(
        {
          version: 1,
          rules: [
            { id: 'x', then: { effect: 'allow' } },
            { id: 'x', then: { effect: 'block' } },
          ],
        },
        0,
      ),
    ).toThrow(/unique/)
  })

  describe('direction on guardrail changes (limits, address book)', () => {
    const directed = policyFromPayload(
      {
        version: 1,
        rules: [
          { id: 'tighten-free', kinds: ['limits'], direction: 'tighten', then: { effect: 'allow' } },
          {
            id: 'loosen-4eyes',
            kinds: ['limits', 'address_book'],
            direction: 'loosen',
            then: { effect: 'approve', count: 2, roles: ['approver'] },
          },
          { id: 'rest', kinds: ['limits', 'address_book'], then: { effect: 'block' } },
        ],
      },
      0,
    ).rules

    it('matches a rule with a direction only on a change in that direction', () => {
      expect(evaluate(directed, intent({ kind: 'limits', direction: 'tighten' }))).toEqual({ effect: 'allow', rule: 'tighten-free' })
      expect(evaluate(directed, intent({ kind: 'limits', direction: 'loosen' }))).toMatchObject({ effect: 'approve', rule: 'loosen-4eyes' })
      expect(evaluate(directed, intent({ kind: 'address_book', direction: 'tighten' }))).toEqual({ effect: 'block', rule: 'rest' })
      // A change without a direction (recorded before there were any) matches no directed rule.
      expect(evaluate(directed, intent({ kind: 'limits' }))).toEqual({ effect: 'block', rule: 'rest' })
    })

    it('refuses, when the policy is written, a direction that is unknown or on a rule that could match anything else', () => {
      const write = (r: Record<string, unknown>) => () =>
        policyFromPayload({ version: 1, rules: [{ id: 'r', then: { effect: 'allow' }, ...r }] }, 0)
      expect(write({ kinds: ['limits'], direction: 'down' })).toThrow(/rule r: direction must be tighten or loosen/)
      expect(write({ kinds: ['limits'], direction: 1 })).toThrow(/direction must be/)
      expect(write({ direction: 'loosen' })).toThrow(/rule r: a direction applies to limits and address_book changes only/)
      expect(write({ kinds: ['limits', 'withdraw'], direction: 'loosen' })).toThrow(/applies to limits and address_book/)
      expect(write({ kinds: ['resume'], direction: 'loosen' })).toThrow(expect.objectContaining({ code: 'TeamBadInput' }))
      expect(write({ kinds: ['address_book'], direction: 'tighten' })().rules[0]!.direction).toBe('tighten')
    })
  })
})

describe('account groups (named in the policy, signed with it)', () => {
  const COLD = '0x4444444444444444444444444444444444444444'
  const grouped = policyFromPayload(
    {
      version: 1,
      groups: { 'Cold storage': [COLD, '0x5555555555555555555555555555555555555555'], Ops: [ACC] },
      rules: [
        { id: 'cold', kinds: ['withdraw', 'transfer'], groups: ['Cold storage'], then: { effect: 'approve', count: 2, roles: ['admin'] } },
        { id: 'ops-or-dest', accounts: [DEST], groups: ['Ops'], then: { effect: 'allow' } },
      ],
    },
    0,
  )

  it('matches an account in any group the rule names, or in its accounts; another account falls through', () => {
    expect(grouped.groups).toEqual({ 'Cold storage': [COLD, '0x5555555555555555555555555555555555555555'], Ops: [ACC] })
    expect(evaluate(grouped.rules, intent({ account: COLD.toUpperCase().replace('0X', '0x') }))).toMatchObject({ rule: 'cold', count: 2 })
    expect(evaluate(grouped.rules, intent({ account: ACC }))).toMatchObject({ rule: 'ops-or-dest', effect: 'allow' })
    expect(evaluate(grouped.rules, intent({ account: DEST }))).toMatchObject({ rule: 'ops-or-dest', effect: 'allow' })
    expect(evaluate(grouped.rules, intent({ account: '0x6666666666666666666666666666666666666666' }))).toMatchObject({ rule: null })
  })

  it('refuses a rule naming a group the policy does not define, a bad member, a member twice, a bad name', () => {
    const read = (p: object) => () => policyFromPayload({ version: 1, ...p }, 0)
    expect(read({ rules: [{ id: 'x', groups: ['Nope'], then: { effect: 'allow' } }] })).toThrow(/no account group named "Nope"/)
    expect(read({ groups: { A: ['0x12'] }, rules: [] })).toThrow(/not an address: 0x12/)
    expect(read({ groups: { A: [ACC, ACC] }, rules: [] })).toThrow(/group A lists an account twice/)
    expect(read({ groups: { A: [] }, rules: [] })).toThrow(/group A must be a non-empty list/)
    expect(read({ groups: { '-bad': [ACC] }, rules: [] })).toThrow(/group name "-bad"/)
    expect(read({ groups: [ACC], rules: [] })).toThrow(/groups must be an object/)
  })
})

describe("the team's names for addresses (signed with the policy)", () => {
  const A = '0x' + 'ab'.repeat(20)
  const at = (names: unknown) =>
    policyFromPayload({ version: 1, rules: [{ id: 'r', then: { effect: 'allow' } }], names: names as never }, 0)

  it('are kept as given, lower-case addresses only', () => {
    expect(at({ [A]: 'Cold wallet' }).names).toEqual({ [A]: 'Cold wallet' })
    expect(at(undefined).names).toEqual({})
    expect(() => at({ [A.toUpperCase().replace('0X', '0x')]: 'x' })).toThrow(/lower-case/)
  })

  it('refuse a name that is empty, too long, padded or carries control characters', () => {
    for (const bad of ['', ' padded', 'x'.repeat(65), 'tab\there', 7]) expect(() => at({ [A]: bad })).toThrow(/1 to 64 printable/)
    expect(() => at({ 'not an address': 'x' })).toThrow()
  })
})

describe('a USD value the desk cannot price is judged at its worst case', () => {
  const ACCOUNT = '0x' + '11'.repeat(20)
  const judge = (list: unknown[], i: Partial<Intent>) =>
    evaluate(policyFromPayload({ version: 1, rules: list } as never, 0).rules, {
      kind: 'transfer',
      account: ACCOUNT,
      usd: 10n,
      windowUsd: 10n,
      ...i,
    } as Intent)
  const approve = (count = 1, roles = ['approver']) => ({ effect: 'approve', count, roles })
  const rules = [
    { id: 'big', kinds: ['transfer'], minUsd: '50', then: approve() },
    { id: 'window', kinds: ['withdraw'], minWindowUsd: '3000', then: approve() },
    { id: 'rest', then: { effect: 'allow' } },
  ]
  const at = (i: Partial<Intent>) => judge(rules, i)

  it('a rule that needs approvals from some value on applies to an unknown value (never read as zero)', () => {
    expect(at({ usd: 10n }).rule).toBe('rest')
    expect(at({ usd: null, windowUsd: null })).toMatchObject({ effect: 'approve', rule: 'big', count: 1 })
    expect(at({ kind: 'withdraw', usd: null, windowUsd: null }).rule).toBe('window')
    expect(at({ kind: 'withdraw', usd: 5n, windowUsd: 10n }).rule).toBe('rest')
  })

  it("an unknown window total (a write in it had no value) meets the window's bound; a known one is judged as it is", () => {
    expect(at({ kind: 'withdraw', usd: 5n, windowUsd: null }).rule).toBe('window')
    expect(at({ kind: 'withdraw', usd: 5n, windowUsd: 2999_00000000n }).rule).toBe('rest')
  })

  it('a rule that allows only from some value on does not allow an unknown value', () => {
    const list = [
      { id: 'big-ok', minUsd: '1000', then: { effect: 'allow' } },
      { id: 'small', then: approve() },
    ]
    expect(judge(list, { usd: 2000_00000000n }).rule).toBe('big-ok')
    expect(judge(list, { usd: null, windowUsd: null })).toMatchObject({ effect: 'approve', rule: 'small' })
  })

  it('blocked at some value is blocked: the strictest decision over every value it could take', () => {
    const list = [{ id: 'big', minUsd: '1000', then: approve() }]
    expect(judge(list, { usd: 2000_00000000n })).toMatchObject({ effect: 'approve', rule: 'big' })
    expect(judge(list, { usd: null, windowUsd: null })).toMatchObject({ effect: 'block', rule: null })
    const named = [
      { id: 'huge', minUsd: '1000000', then: { effect: 'block' } },
      { id: 'rest', then: { effect: 'allow' } },
    ]
    expect(judge(named, { usd: null, windowUsd: null })).toMatchObject({ effect: 'block', rule: 'huge' })
  })

  it('more approvals are stricter; among equally strict rules the one a larger value meets wins', () => {
    const list = [
      { id: 'huge', minUsd: '1000000', then: approve(2, ['admin']) },
      { id: 'big', minUsd: '1000', then: approve(3) },
      { id: 'mid', minUsd: '100', then: approve(3, ['admin']) },
      { id: 'rest', then: { effect: 'allow' } },
    ]
    expect(judge(list, { usd: null, windowUsd: null }).rule).toBe('big')
    const ties = [
      { id: 'small-admin', kinds: ['withdraw'], then: approve(1, ['admin']) },
      { id: 'big', minUsd: '1000', then: approve() },
      { id: 'rest', then: approve(1, ['trader']) },
    ]
    expect(judge(ties, { usd: null, windowUsd: null }).rule).toBe('big')
  })

  it('with no USD bound in the policy, an unknown value changes nothing', () => {
    const list = [
      { id: 'transfers', kinds: ['transfer'], then: approve() },
      { id: 'rest', then: { effect: 'allow' } },
    ]
    expect(judge(list, { usd: null, windowUsd: null }).rule).toBe('transfers')
    expect(judge(list, { kind: 'settle', usd: null, windowUsd: null }).rule).toBe('rest')
  })

  it('a write that moves no value is judged at zero; a value-moving one without a mark is unknown', () => {
    expect(judgedUsd('agent_approve', null)).toBe(0n)
    expect(judgedUsd('transfer', null)).toBeNull()
    expect(judgedUsd('earn_request', null)).toBeNull()
    expect(judgedUsd('transfer', 7n)).toBe(7n)
    // The reading of desks before issue 30.2, kept only to verify the entries they wrote.
    expect(judgedUsd('transfer', null, 'zero')).toBe(0n)
  })

  it('an entry is read as its author read it: an unknown window total means the worst case; a known one, every value as a number', () => {
    expect(usdReadingOf({ windowUsd: null })).toBe('worst-case')
    expect(usdReadingOf({ windowUsd: 0n })).toBe('zero')
  })

  it('says what was unknown and how it was judged, for the screens, the review and the CLI', () => {
    expect(unknownUsdNote({ kind: 'transfer', usd: null, windowUsd: null })).toMatch(/^value unknown .*worst case$/)
    expect(unknownUsdNote({ kind: 'transfer', usd: 7n, windowUsd: null })).toMatch(/24 h total was unknown.*worst case$/)
    expect(unknownUsdNote({ kind: 'transfer', usd: 7n, windowUsd: 7n })).toBeNull()
    expect(unknownUsdNote({ kind: 'agent_approve', usd: null, windowUsd: 0n })).toBeNull()
    expect(unknownUsdNote({ kind: 'transfer', usd: null, windowUsd: 5n })).toMatch(/older desk judged it as zero/)
  })
})
