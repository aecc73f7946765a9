/**
 * The chain verifier on proposal lifecycle entries a dishonest client wrote straight into the log
 * (validly signed by a member, but against the rules): each is refused at its own seq.
 */
import { describe, expect, it } from 'vitest'
import { lifecycleEntry } from './authoring'
import { toStoredRow, verifyChain, type TeamState } from './chain'
import { signedEntry, unsignedEntry, type EntryKind } from './entry'
import { proposalPayload, type ProposalBody } from './proposals'
import { DESK_WIDE_ACCOUNT, settingsAction, type SettingsChange } from './settings'
import { ChainBuilder, asMember, operator, type Operator } from './testing/team-fixture'

const ann = operator('ann')
const bob = operator('bob')
const cat = operator('cat')
const dan = operator('dan')
const vic = operator('vic') // viewer
const T0 = Date.UTC(2026, 10, 26, 9)
const ACC = '0x1111111111111111111111111111111111111111'
/** The /trade envelope of the approved action, as a desk stores it. */
const SENT = JSON.stringify({ action: { amount: '5000', type: 'withdraw' }, nonce: '7', signature: '0x01' })

function body(o: Partial<ProposalBody> = {}): ProposalBody {
  return {
    network: 'sandbox',
    exchange: 'sandbox-1',
    account: ACC,
    signer: ACC,
    kind: 'withdraw',
    action: { amount: '5000', type: 'withdraw' },
    cloid: '0xc1',
    title: 'Withdraw 5,000 USDC',
    preview: ['Amount 5,000 USDC'],
    usd: 5000_00000000n,
    windowUsd: 5000_00000000n,
    destination: null,
    policyVersion: 1,
    rule: 'big',
    needs: { count: 1, roles: ['approver'] },
    at: T0,
    expiresAt: T0 + 3600_000,
    ...o,
  }
}

/** A team with a policy, and a chain that takes entries with or without the honest pre-checks. */
async function setup(
  rules: unknown[] = [{ id: 'big', kinds: ['withdraw'], minUsd: '1000', then: { effect: 'approve', count: 1, roles: ['approver'] } }],
) {
  const b = await ChainBuilder.genesis(ann, [
    asMember(ann, ['admin']),
    asMember(bob, ['approver']),
    asMember(cat, ['trader', 'approver']),
    asMember(dan, ['trader']),
    asMember(vic, ['viewer']),
  ])
  await b.policy(rules, [ann])
  const rows = b.rows()
  let state: TeamState = b.state
  const add = async (kind: EntryKind, payload: unknown, by: Operator, checked = true) => {
    const seq = state.head!.seq + 1n
    const e =
      checked && kind !== 'genesis' && kind !== 'roster' && kind !== 'policy' && kind !== 'custody'
        ? lifecycleEntry(state, kind, payload, by.address)
        : unsignedEntry(seq, state.head!.digest, kind, payload)
    const s = await signedEntry(b.teamId, e, [by])
    rows.push(toStoredRow(s))
    const r = await verifyChain(rows)
    if (r.ok) state = r.state
    return { id: s.digest, seq, report: r }
  }
  return { add, rows }
}

describe('proposal lifecycle in the chain', () => {
  it('verifies proposal -> approval -> signed -> outcome and builds the proposal from the entries', async () => {
    const { add } = await setup()
    const p = await add('proposal', proposalPayload(body()), dan)
    await add('approval', { proposal: p.id, policyVersion: 1, at: T0 + 1 }, bob)
    await add('signed', { proposal: p.id, body: SENT, nonce: '7', at: T0 + 2 }, dan)
    const last = await add('outcome', { proposal: p.id, state: 'accepted', finalStatus: 'ok', code: null, at: T0 + 3 }, dan)
    expect(last.report.ok).toBe(true)
    const got = last.report.state.proposals.get(p.id)!
    expect(got).toMatchObject({
      initiator: dan.address.toLowerCase(),
      usd: 5000_00000000n,
      approvals: [{ by: bob.address.toLowerCase() }],
      signed: { nonce: '7' },
    })
    expect(got.outcomes.map((o) => o.state)).toEqual(['accepted'])
  })

  const refusals: [
    string,
    (
      add: Awaited<ReturnType<typeof setup>>['add'],
      id: string,
    ) => Promise<{ seq: bigint; report: Awaited<ReturnType<typeof verifyChain>> }>,
    RegExp,
  ][] = [
    [
      'signed bytes without the quorum',
      (add, id) => add('signed', { proposal: id, body: SENT, nonce: '7', at: T0 + 2 }, dan, false),
      /signed without its quorum: 0 of 1/,
    ],
    [
      'an approval by a viewer',
      (add, id) => add('approval', { proposal: id, policyVersion: 1, at: T0 + 1 }, vic, false),
      /holds none of the roles the rule names/,
    ],
    [
      'an approval after the expiry',
      (add, id) => add('approval', { proposal: id, policyVersion: 1, at: T0 + 3600_000 }, bob, false),
      /expired at/,
    ],
    [
      'an approval bound to another policy version',
      (add, id) => add('approval', { proposal: id, policyVersion: 2, at: T0 + 1 }, bob, false),
      /bound to policy version 2/,
    ],
    [
      'an approval naming no proposal in the chain',
      (add) => add('approval', { proposal: `0x${'ab'.repeat(32)}`, policyVersion: 1, at: T0 + 1 }, bob, false),
      /not in the chain before it/,
    ],
    [
      'a rejection without a reason',
      (add, id) => add('rejection', { proposal: id, reason: ' ', at: T0 + 1 }, bob, false),
      /needs a reason/,
    ],
    [
      'an outcome before any signed bytes',
      (add, id) => add('outcome', { proposal: id, state: 'accepted', finalStatus: 'ok', code: null, at: T0 + 1 }, dan, false),
      /before the signed bytes/,
    ],
    [
      'an expiry recorded early',
      (add, id) => add('outcome', { proposal: id, state: 'expired', finalStatus: null, code: null, at: T0 + 1 }, bob, false),
      /before its expiry/,
    ],
  ]
  for (const [what, write, reason] of refusals) {
    it(`refuses ${what}, naming that entry`, async () => {
      const { add } = await setup()
      const p = await add('proposal', proposalPayload(body()), dan)
      const bad = await write(add, p.id)
      expect(bad.report.broken?.seq).toBe(bad.seq)
      expect(bad.report.broken?.reason).toMatch(reason)
    })
  }

  it('refuses a proposal the policy does not send to approval, a reused cloid, and one by a viewer', async () => {
    const { add } = await setup()
    const small = await add('proposal', proposalPayload(body({ usd: 10_00000000n, windowUsd: 10_00000000n })), dan, false)
    expect(small.report.broken?.reason).toMatch(/does not require these approvals/)
    const s2 = await setup()
    await s2.add('proposal', proposalPayload(body()), dan)
    expect((await s2.add('proposal', proposalPayload(body({ at: T0 + 5, expiresAt: T0 + 9000 })), cat, false)).report.broken?.reason).toBe(
      'cloid 0xc1 was already proposed',
    )
    const s3 = await setup()
    expect((await s3.add('proposal', proposalPayload(body()), vic, false)).report.broken?.reason).toMatch(/may not propose/)
  })

  it('refuses signed bytes that carry another action than the approved one, naming that entry', async () => {
    const other = JSON.stringify({ action: { amount: '50000', type: 'withdraw' }, nonce: '7', signature: '0x01' })
    for (const wrong of [other, '{"cloid":"0xc1"}', 'not json']) {
      const { add } = await setup()
      const p = await add('proposal', proposalPayload(body()), dan)
      await add('approval', { proposal: p.id, policyVersion: 1, at: T0 + 1 }, bob)
      const r = await add('signed', { proposal: p.id, body: wrong, nonce: '7', at: T0 + 2 }, dan, false)
      expect(r.report.broken).toEqual({
        seq: r.seq,
        reason: 'the signed bytes do not carry the approved action (their action differs from the proposal)',
      })
    }
  })

  it('stops counting an approval once the policy changed, and refuses signed bytes then', async () => {
    const { add } = await setup()
    const p = await add('proposal', proposalPayload(body()), dan)
    await add('approval', { proposal: p.id, policyVersion: 1, at: T0 + 1 }, bob)
    await add('policy', { version: 2, rules: [{ id: 'all', then: { effect: 'allow' } }] }, ann)
    const signed = await add('signed', { proposal: p.id, body: SENT, nonce: '7', at: T0 + 2 }, dan, false)
    expect(signed.report.broken).toEqual({ seq: signed.seq, reason: 'the policy changed since the proposal (now version 2)' })
  })

  it("judges a limit change by the direction it carries: the loosening rule's approvals for a loosening only", async () => {
    const b = await ChainBuilder.genesis(ann, [asMember(ann, ['admin']), asMember(bob, ['approver']), asMember(dan, ['trader'])])
    await b.policy(
      [
        { id: 'tighten-free', kinds: ['limits'], direction: 'tighten', then: { effect: 'allow' } },
        { id: 'loosen-4eyes', kinds: ['limits'], direction: 'loosen', then: { effect: 'approve', count: 1, roles: ['approver'] } },
      ],
      [ann],
    )
    const propose = async (change: SettingsChange, cloid: string) => {
      const rows = b.rows()
      const e = unsignedEntry(
        b.state.head!.seq + 1n,
        b.state.head!.digest,
        'proposal',
        proposalPayload(
          body({
            kind: 'limits',
            account: DESK_WIDE_ACCOUNT,
            signer: null,
            action: settingsAction(change, 'dan@desk'),
            cloid,
            usd: null,
            windowUsd: 0n,
            rule: 'loosen-4eyes',
          }),
        ),
      )
      rows.push(toStoredRow(await signedEntry(b.teamId, e, [dan])))
      return verifyChain(rows)
    }
    const limit = { op: 'limit.set', name: 'withdraw-limit-usd', value: '900' } as const
    expect((await propose({ ...limit, direction: 'loosen' }, 'settings:a:0')).ok).toBe(true)
    // The same approvals claimed for a tightening, or for a change recorded without a direction: refused.
    expect((await propose({ ...limit, direction: 'tighten' }, 'settings:b:0')).broken?.reason).toMatch(
      /does not require these approvals for this write \(rule tighten-free: allow\)/,
    )
    expect((await propose(limit, 'settings:c:0')).broken?.reason).toMatch(/rule none: block/)
  })
})

describe('writes the policy allowed outright, recorded when signed (needs no approval)', () => {
  const RULES = [
    { id: 'window', kinds: ['withdraw'], minWindowUsd: '10000', then: { effect: 'approve', count: 1, roles: ['approver'] } },
    { id: 'small', kinds: ['withdraw', 'order'], then: { effect: 'allow' } },
  ]
  const recorded = (o: Partial<ProposalBody> = {}) =>
    body({ rule: 'small', needs: { count: 0, roles: [] }, usd: 4000_00000000n, windowUsd: 4000_00000000n, expiresAt: T0 + 60_000, ...o })

  it('verifies a recorded write with its bytes and outcome, and sums it into the next window', async () => {
    const { add } = await setup(RULES)
    const a = await add('proposal', proposalPayload(recorded({ cloid: '0xa1' })), dan)
    await add('signed', { proposal: a.id, body: SENT, nonce: '7', at: T0 + 1 }, dan)
    await add('outcome', { proposal: a.id, state: 'accepted', finalStatus: 'ok', code: null, at: T0 + 2 }, dan)
    const b = await add('proposal', proposalPayload(recorded({ cloid: '0xa2', at: T0 + 3, windowUsd: 8000_00000000n })), dan)
    expect(b.report.ok).toBe(true)
    expect(b.report.state.proposals.get(b.id)?.windowUsd).toBe(8000_00000000n)
    // A third of 4,000 makes 12,000 over the window: not allowed outright any more, though a proposal for it is.
    const third = await add('proposal', proposalPayload(recorded({ cloid: '0xa3', at: T0 + 4, windowUsd: 12000_00000000n })), dan, false)
    expect(third.report.broken?.reason).toMatch(/does not allow this write outright \(rule window: approve\)/)
  })

  it('refuses a recorded write that understates its window total, at its own seq', async () => {
    const { add } = await setup(RULES)
    const a = await add('proposal', proposalPayload(recorded({ cloid: '0xa1' })), dan)
    await add('signed', { proposal: a.id, body: SENT, nonce: '7', at: T0 + 1 }, dan)
    const lie = await add('proposal', proposalPayload(recorded({ cloid: '0xa2', at: T0 + 2, windowUsd: 4000_00000000n })), dan, false)
    expect(lie.report.ok).toBe(false)
    expect(lie.report.broken).toMatchObject({
      seq: lie.seq,
      reason: expect.stringMatching(/window total 4000 USD, the chain before it gives 8000 USD/),
    })
  })

  it('refuses an approval on it, an order recorded, a long expiry, and roles named with no count', async () => {
    const { add } = await setup(RULES)
    const a = await add('proposal', proposalPayload(recorded({ cloid: '0xa1' })), dan)
    const approval = await add('approval', { proposal: a.id, policyVersion: 1, at: T0 + 1 }, bob, false)
    expect(approval.report.broken?.reason).toMatch(/takes no approvals/)
    const cases: [Partial<ProposalBody>, RegExp][] = [
      [{ kind: 'order', action: { type: 'order' } }, /order writes are not recorded without approvals/],
      [{ expiresAt: T0 + 3600_000 }, /expires within 10 minutes/],
      [{ needs: { count: 0, roles: ['approver'] } }, /needs.roles must be empty/],
    ]
    for (const [o, reason] of cases) {
      const { add: fresh } = await setup(RULES)
      const r = await fresh('proposal', proposalPayload(recorded({ cloid: '0xb1', ...o })), dan, false)
      expect(r.report.broken?.reason).toMatch(reason)
    }
  })
})

describe('a USD value the initiator could not price (issue 30.2)', () => {
  const approve = { effect: 'approve', count: 1, roles: ['approver'] }
  const RULES = [
    { id: 'big', kinds: ['withdraw'], minUsd: '1000', then: approve },
    { id: 'day', kinds: ['withdraw'], minWindowUsd: '10000', then: approve },
    { id: 'small', kinds: ['withdraw'], then: { effect: 'allow' } },
  ]
  const recorded = (o: Partial<ProposalBody>) => body({ rule: 'small', needs: { count: 0, roles: [] }, expiresAt: T0 + 60_000, ...o })
  const unknown = { usd: null, windowUsd: null }

  it('is judged at its worst case: recorded as allowed it is refused; proposed under the rule it meets it verifies', async () => {
    const { add } = await setup(RULES)
    const allowed = await add('proposal', proposalPayload(recorded({ cloid: '0xa1', ...unknown })), dan, false)
    expect(allowed.report.broken).toMatchObject({ seq: allowed.seq, reason: expect.stringMatching(/outright \(rule big: approve\)/) })

    const fresh = await setup(RULES)
    const p = await fresh.add('proposal', proposalPayload(body({ cloid: '0xa2', rule: 'big', ...unknown })), dan, false)
    expect(p.report.ok).toBe(true)
    expect(p.report.state.proposals.get(p.id)).toMatchObject({ usd: null, windowUsd: null, rule: 'big' })
  })

  it("an unknown value in the window makes the next write's window unknown: a small write then needs the window rule", async () => {
    const { add } = await setup(RULES)
    await add('proposal', proposalPayload(body({ cloid: '0xa1', rule: 'big', ...unknown })), dan, false)
    const next = { at: T0 + 1, usd: 500_00000000n, windowUsd: null }
    const proposed = await add('proposal', proposalPayload(body({ ...next, cloid: '0xa2', rule: 'day' })), dan, false)
    expect(proposed.report.ok).toBe(true)
    const asAllowed = await add('proposal', proposalPayload(recorded({ ...next, cloid: '0xa3' })), dan, false)
    expect(asAllowed.report.broken?.reason).toMatch(/outright \(rule day: approve\)/)
  })

  it('entries written by desks that read an unknown value as zero still verify (a chain never breaks on an upgrade)', async () => {
    const { add } = await setup(RULES)
    // As such a desk recorded them: value unknown, judged at zero, with a window total that adds it as zero.
    const a = await add('proposal', proposalPayload(recorded({ cloid: '0xa1', usd: null, windowUsd: 0n })), dan, false)
    expect(a.report.ok).toBe(true)
    const b = await add(
      'proposal',
      proposalPayload(recorded({ cloid: '0xa2', at: T0 + 1, usd: 500_00000000n, windowUsd: 500_00000000n })),
      dan,
      false,
    )
    expect(b.report.ok).toBe(true)
    // The window total is still checked against the chain under that reading.
    const lie = await add(
      'proposal',
      proposalPayload(recorded({ cloid: '0xa3', at: T0 + 2, usd: 500_00000000n, windowUsd: 500_00000000n })),
      dan,
      false,
    )
    expect(lie.report.broken?.reason).toMatch(/window total 500 USD, the chain before it gives 1000 USD/)
  })
})
