/**
 * Issue 23 item 3: team policy rules on guardrail settings changes (address book, limits, resume),
 * two desks (A: admin and trader, B: approver), one real PostgreSQL. Allowed changes apply at once;
 * blocked ones are refused naming the rule; gated ones become proposals applied once, by the desk
 * that proposed them, after B's approval; a forged approval applies nothing; the halt stays
 * immediate whatever the policy says, and resume waits for its approval.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import type { HaltResult, PolicyView, TeamPolicyView, TeamProposalDetail, TeamProposalView, TeamStatusView } from '../../../contract/types'
import { TeamStore, sealEntry, signEntry, toStoredRow, verifyStore } from '../../team'
import { operator } from '../../team/testing/team-fixture'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { shortCoolingOff, startDeskOnSharedSandbox, type SharedSandboxDesk } from '../../../testing/team-desks'

const COLD = '0x52908400098527886E0F7030069857D2E4169EE7'
const WARM = '0x8ba1f109551bD432803012645Ac136ddd64DBA72'
const FORGED = '0x1111111111111111111111111111111111111111'
const approve1 = { effect: 'approve', count: 1, roles: ['approver'] }

describe('team policy on address-book, limit and resume changes (real PostgreSQL)', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let bob = ''
  let store: TeamStore

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: { code: string; message: string; details?: Record<string, unknown> }) => e,
    )
  const book = async (d: SharedSandboxDesk) => (await d.call<PolicyView>('policy.show')).addresses.map((x) => x.label).sort()
  const limit = async (name: string) => (await a.call<PolicyView>('policy.show')).rules.find((r) => r.name === name)?.value ?? null
  const setPolicy = async (rules: unknown[]) => {
    const v = await a.call<{ version: number }>('team.policy.set', { rules })
    await expect
      .poll(async () => (await b.call<TeamStatusView>('team.status')).policyVersion, { timeout: 3000, interval: 50 })
      .toBe(v.version)
  }
  /** Entries of the verified chain about one proposal. */
  const entriesOf = async (id: string) => {
    const { state } = await verifyStore(store)
    return state.proposals.get(id)!
  }

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    a = await startDeskOnSharedSandbox(sandbox)
    b = await startDeskOnSharedSandbox(sandbox)
    for (const d of [a, b]) await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    shortCoolingOff(a, sandbox)
    const cfg = { connectionString: db.connectionString, password: db.password, passphrase: TEST_PASSPHRASE }
    for (const d of [a, b]) await d.call('team.configure', cfg)
    await a.call('team.init', { teamName: 'Ops', name: 'Ann', passphrase: TEST_PASSPHRASE })
    bob = (await b.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })).address
    await a.call('team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
    store = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
  })
  afterAll(async () => {
    await store?.close()
    await a?.close()
    await b?.close()
    await sandbox?.stop()
    await db?.stop()
  })

  it('refuses at authoring a rule that would block or gate the halt; an allow rule naming it is accepted', async () => {
    for (const then of [approve1, { effect: 'block' }]) {
      const e = await failure(a.call('team.policy.set', { rules: [{ id: 'halt-gate', kinds: ['halt', 'resume'], then }] }))
      expect(e).toMatchObject({ code: 'TeamPolicyGatesHalt', message: expect.stringMatching(/halt-gate.*halt is always immediate/) })
    }
    expect((await a.call<TeamStatusView>('team.status')).policyVersion).toBeNull()
    await setPolicy([
      { id: 'settings-free', kinds: ['address_book', 'limits'], then: { effect: 'allow' } },
      { id: 'halt-free', kinds: ['halt'], then: { effect: 'allow' } },
      { id: 'rest', then: approve1 },
    ])
  })

  it('allow: an address-book entry and a limit apply at once, single-desk guardrails still in force', async () => {
    const added = await a.call<{ label: string; usable: boolean }>('addresses.add', {
      label: 'cold',
      address: COLD,
      chainId: '1',
      passphrase: TEST_PASSPHRASE,
    })
    expect(added).toMatchObject({ label: 'cold', usable: false }) // the cooling-off still runs
    await expect(
      a.call('addresses.add', { label: 'warm', address: WARM, chainId: '1', passphrase: 'not the passphrase' }),
    ).rejects.toMatchObject({ code: 'PassphraseIncorrect' })
    await a.call('policy.set', { name: 'withdraw-limit-usd', value: '500' }) // a tightening: no passphrase, as alone
    expect(await limit('withdraw-limit-usd')).toBe('500')
    expect(await book(a)).toEqual(['cold'])
    expect((await verifyStore(store)).state.proposals.size).toBe(0)
  })

  let bookProposal = ''

  it('block: a limit change under a block rule is refused naming the rule, nothing changes', async () => {
    await setPolicy([
      { id: 'book-4eyes', kinds: ['address_book'], then: approve1 },
      { id: 'limits-frozen', kinds: ['limits'], then: { effect: 'block' } },
      { id: 'halt-free', kinds: ['halt'], then: { effect: 'allow' } },
      { id: 'rest', then: approve1 },
    ])
    const e = await failure(a.call('policy.set', { name: 'withdraw-limit-usd', value: '100' }))
    expect(e).toMatchObject({ code: 'TeamPolicyBlocks', message: expect.stringMatching(/rule limits-frozen blocks this change/) })
    expect(await limit('withdraw-limit-usd')).toBe('500')
  })

  it('require approval: a proposal with the exact change; approved on B, applied once on A and recorded in the chain', async () => {
    // A wrong passphrase makes no proposal.
    const wrong = await failure(a.call('addresses.add', { label: 'warm', address: WARM, chainId: '1', passphrase: 'nope' }))
    expect(wrong?.code).toBe('PassphraseIncorrect')
    expect((await verifyStore(store)).state.proposals.size).toBe(0)

    const e = await failure(a.call('addresses.add', { label: 'warm', address: WARM, chainId: '1', passphrase: TEST_PASSPHRASE }))
    expect(e).toMatchObject({
      code: 'TeamSettingsProposed',
      message: expect.stringMatching(/needs 0 of 1 approval\(s\) from approver \(rule book-4eyes\)/),
    })
    bookProposal = e!.details!.proposalId as string
    expect(await book(a)).toEqual(['cold']) // nothing changed yet
    // Asking again makes no second proposal.
    const again = await failure(a.call('addresses.add', { label: 'warm', address: WARM, chainId: '1', passphrase: TEST_PASSPHRASE }))
    expect(again?.details?.proposalId).toBe(bookProposal)

    const p = await entriesOf(bookProposal)
    expect(p).toMatchObject({ kind: 'address_book', usd: null, destination: WARM.toLowerCase(), rule: 'book-4eyes' })
    expect(p.action).toEqual({ op: 'address.add', label: 'warm', address: WARM, chainId: '1', desk: expect.any(String) })
    expect(p.cloid).toMatch(/^settings:0x[0-9a-f]{32}:0$/)

    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).map((x) => x.id), {
        timeout: 3000,
        interval: 50,
      })
      .toEqual([bookProposal])
    const [queued] = await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })
    expect(queued).toMatchObject({ kind: 'address_book', title: `Address book: add "warm" ${WARM} on chain 1`, canExecute: false })
    const detail = await b.call<TeamProposalDetail>('team.proposal', { id: bookProposal })
    expect(detail.action).toMatchObject({ op: 'address.add', label: 'warm' })
    expect(detail.recomputeError).toMatch(/guardrail settings change of desk/)
    // The initiator cannot approve it; A's desk refuses to run it by hand.
    await expect(a.call('team.approve', { id: bookProposal })).rejects.toMatchObject({ code: 'TeamProposalRefused' })
    await expect(a.call('team.execute', { id: bookProposal })).rejects.toMatchObject({ code: 'TeamSettingsApplyOnTheirOwn' })

    await b.call('team.approve', { id: bookProposal })
    // A applies it on its own (the push), once: one `signed` entry, one outcome, the entry in A's book under the cooling-off.
    await expect.poll(() => book(a), { timeout: 5000, interval: 50 }).toEqual(['cold', 'warm'])
    await expect.poll(async () => (await entriesOf(bookProposal)).outcomes.length, { timeout: 3000, interval: 50 }).toBe(1)
    const done = await entriesOf(bookProposal)
    expect(done.signed).toMatchObject({ nonce: 'none' })
    expect(JSON.parse(done.signed!.body)).toEqual({ action: done.action })
    expect(done.outcomes).toMatchObject([{ state: 'accepted', finalStatus: 'applied' }])
    expect((await a.call<PolicyView>('policy.show')).addresses.find((x) => x.label === 'warm')?.usable).toBe(false)
    expect(await book(b)).toEqual([]) // B's own book is B's: the change was A's
    // Later pushes apply nothing twice (team-gate.test.ts races two calls on one desk and refuses another desk).
    await expect(a.call('team.execute', { id: bookProposal })).rejects.toMatchObject({ code: 'TeamSettingsApplyOnTheirOwn' })
    await a.call('team.status')
    expect((await entriesOf(bookProposal)).outcomes).toHaveLength(1)
  })

  it('halt is immediate in team mode even under a catch-all approval rule; resume waits for an approval, then applies once', async () => {
    await setPolicy([
      { id: 'book-4eyes', kinds: ['address_book'], then: approve1 },
      { id: 'everything-4eyes', then: approve1 }, // matches every kind; the halt is never judged
    ])
    const halted = await a.call<HaltResult>('policy.halt')
    expect(halted.halted).toMatchObject({ since: expect.any(Number) })
    expect((await a.call<PolicyView>('policy.show')).halted).not.toBeNull()

    await expect(a.call('policy.resume', { passphrase: 'nope' })).rejects.toMatchObject({ code: 'PassphraseIncorrect' })
    const e = await failure(a.call('policy.resume', { passphrase: TEST_PASSPHRASE }))
    expect(e).toMatchObject({ code: 'TeamSettingsProposed', message: expect.stringMatching(/rule everything-4eyes/) })
    const id = e!.details!.proposalId as string
    expect((await a.call<PolicyView>('policy.show')).halted).not.toBeNull() // still halted
    expect((await entriesOf(id)).kind).toBe('resume')

    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).map((x) => x.id), {
        timeout: 3000,
        interval: 50,
      })
      .toEqual([id])
    await b.call('team.approve', { id })
    await expect.poll(async () => (await a.call<PolicyView>('policy.show')).halted, { timeout: 5000, interval: 50 }).toBeNull()
    await expect.poll(async () => (await entriesOf(id)).outcomes.map((o) => o.state), { timeout: 3000, interval: 50 }).toEqual(['accepted'])
    // Not halted any more: resume has nothing to do, no proposal is made.
    await expect(a.call('policy.resume', { passphrase: TEST_PASSPHRASE })).rejects.toMatchObject({ code: 'NotHalted' })
  })

  it('direction: tightening a limit or removing an address applies at once, loosening one or adding an address waits for approval', async () => {
    // Checked where the policy is written: a direction on a kind it means nothing for is refused.
    const before = (await a.call<TeamStatusView>('team.status')).policyVersion
    for (const rule of [
      { id: 'bad', kinds: ['limits', 'withdraw'], direction: 'loosen', then: approve1 },
      { id: 'bad', direction: 'tighten', then: { effect: 'allow' } },
    ]) {
      const e = await failure(a.call('team.policy.set', { rules: [rule] }))
      expect(e).toMatchObject({
        code: 'TeamProposalRefused', // as every rule the chain would refuse, before anything is signed
        message: expect.stringMatching(/rule bad: a direction applies to limits and address_book/),
      })
    }
    expect(
      await failure(a.call('team.policy.set', { rules: [{ id: 'bad', kinds: ['limits'], direction: 'up', then: approve1 }] })),
    ).not.toBeNull()
    expect((await a.call<TeamStatusView>('team.status')).policyVersion).toBe(before)

    await setPolicy([
      { id: 'limits-tighten', kinds: ['limits'], direction: 'tighten', then: { effect: 'allow' } },
      { id: 'limits-loosen', kinds: ['limits'], direction: 'loosen', then: approve1 },
      { id: 'book-remove', kinds: ['address_book'], direction: 'tighten', then: { effect: 'allow' } },
      { id: 'book-add', kinds: ['address_book'], direction: 'loosen', then: approve1 },
      { id: 'rest', then: approve1 },
    ])
    const shown = (await b.call<TeamPolicyView>('team.policy')).rules
    expect(shown.map((r) => [r.id, r.direction])).toEqual([
      ['limits-tighten', 'tighten'],
      ['limits-loosen', 'loosen'],
      ['book-remove', 'tighten'],
      ['book-add', 'loosen'],
      ['rest', undefined],
    ])
    const proposalsBefore = (await verifyStore(store)).state.proposals.size

    // Tightening (lower) and adding a limit (off -> a value): in force at once, no proposal.
    await a.call('policy.set', { name: 'withdraw-limit-usd', value: '400' })
    expect(await limit('withdraw-limit-usd')).toBe('400')
    await a.call('policy.set', { name: 'transfer-limit-usd', value: '1000' })
    expect(await limit('transfer-limit-usd')).toBe('1000')
    expect((await verifyStore(store)).state.proposals.size).toBe(proposalsBefore)

    // Loosening (higher) and removing a limit: each a proposal under limits-loosen; nothing changes yet.
    const raise = await failure(a.call('policy.set', { name: 'withdraw-limit-usd', value: '450', passphrase: TEST_PASSPHRASE }))
    expect(raise).toMatchObject({ code: 'TeamSettingsProposed', message: expect.stringMatching(/\(loosening\).*rule limits-loosen/) })
    const off = await failure(a.call('policy.set', { name: 'transfer-limit-usd', value: 'off', passphrase: TEST_PASSPHRASE }))
    expect(off).toMatchObject({ code: 'TeamSettingsProposed', message: expect.stringMatching(/rule limits-loosen/) })
    expect(await limit('withdraw-limit-usd')).toBe('400')
    expect(await limit('transfer-limit-usd')).toBe('1000')
    const raiseId = raise!.details!.proposalId as string
    expect((await entriesOf(raiseId)).action).toMatchObject({
      op: 'limit.set',
      name: 'withdraw-limit-usd',
      value: '450',
      direction: 'loosen',
    })
    expect((await entriesOf(off!.details!.proposalId as string)).action).toMatchObject({ value: null, direction: 'loosen' })

    // Adding an address loosens (book-add: a proposal); removing the entry once applied tightens (book-remove: at once).
    const add = await failure(a.call('addresses.add', { label: 'spare', address: FORGED, chainId: '1', passphrase: TEST_PASSPHRASE }))
    expect(add).toMatchObject({ code: 'TeamSettingsProposed', message: expect.stringMatching(/rule book-add/) })
    const addId = add!.details!.proposalId as string

    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).length, { timeout: 3000, interval: 50 })
      .toBe(3)
    await b.call('team.approve', { id: raiseId })
    await b.call('team.approve', { id: addId })
    await b.call('team.reject', { id: off!.details!.proposalId, reason: 'keep a transfer limit' })
    // A applies both on its own; the raise is a loosening, so it waits out A's (short) cooling-off as alone.
    await expect.poll(() => book(a), { timeout: 5000, interval: 50 }).toEqual(['cold', 'spare', 'warm'])
    await expect.poll(() => limit('withdraw-limit-usd'), { timeout: 8000, interval: 100 }).toBe('450')
    expect(await limit('transfer-limit-usd')).toBe('1000')
    expect((await entriesOf(raiseId)).outcomes).toMatchObject([{ state: 'accepted' }])

    await a.call('addresses.remove', { label: 'spare', passphrase: TEST_PASSPHRASE })
    expect(await book(a)).toEqual(['cold', 'warm'])
  })

  it('a limit change approved as a tightening that the value in force has since made a loosening is not applied', async () => {
    await setPolicy([
      { id: 'tighten-4eyes', kinds: ['limits'], direction: 'tighten', then: approve1 },
      { id: 'rest', then: approve1 },
    ])
    const propose = async (value: string) => {
      const e = await failure(a.call('policy.set', { name: 'withdraw-limit-usd', value }))
      expect(e).toMatchObject({ code: 'TeamSettingsProposed', message: expect.stringMatching(/\(tightening\).*rule tighten-4eyes/) })
      return e!.details!.proposalId as string
    }
    const to300 = await propose('300')
    const to200 = await propose('200')
    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).length, { timeout: 3000, interval: 50 })
      .toBe(2)
    await b.call('team.approve', { id: to200 })
    await expect.poll(() => limit('withdraw-limit-usd'), { timeout: 5000, interval: 50 }).toBe('200')
    // 200 -> 300 raises the limit now: refused and recorded for every desk, the limit stays.
    await b.call('team.approve', { id: to300 })
    await expect
      .poll(async () => (await entriesOf(to300)).outcomes, { timeout: 5000, interval: 50 })
      .toMatchObject([{ state: 'rejected', code: 'TeamSettingsDirectionChanged' }])
    expect(await limit('withdraw-limit-usd')).toBe('200')
  })

  it("a forged approval (a stranger signing in the approver's name) applies nothing: the chain is refused there", async () => {
    const e = await failure(a.call('addresses.add', { label: 'forged', address: FORGED, chainId: '1', passphrase: TEST_PASSPHRASE }))
    expect(e?.code).toBe('TeamSettingsProposed')
    const id = e!.details!.proposalId as string
    const { state } = await verifyStore(store)
    const head = state.head!
    const unsigned = {
      seq: head.seq + 1n,
      prev: head.digest,
      kind: 'approval' as const,
      payload: JSON.stringify({ at: Date.now(), policyVersion: state.policy!.version, proposal: id }),
    }
    const sig = await signEntry(operator('mallory'), state.roster!.teamId, unsigned)
    const forged = toStoredRow(
      sealEntry(state.roster!.teamId, unsigned, [{ signer: bob.toLowerCase() as `0x${string}`, signature: sig.signature }]),
    )
    const c = new pg.Client({ ...db.adminConfig, database: 'team' })
    await c.connect()
    try {
      await c.query('INSERT INTO team_log (seq, prev, kind, payload, digest, signatures) VALUES ($1, $2, $3, $4, $5, $6)', [
        forged.seq.toString(),
        forged.prev,
        forged.kind,
        forged.payload,
        forged.digest,
        forged.signatures,
      ])
    } finally {
      await c.end()
    }
    await expect.poll(async () => (await a.call<TeamStatusView>('team.status')).state, { timeout: 3000, interval: 50 }).toBe('tampered')
    // B's desk refuses the chain too; A never applied the change and the chain holds no `signed` entry for it.
    await expect(b.call('team.approve', { id })).rejects.toMatchObject({ code: 'TeamChainTampered' })
    expect(await book(a)).toEqual(['cold', 'warm'])
    const rows = await store.readLog(0n)
    expect(rows.filter((r) => r.kind === 'signed' && r.payload.includes(id))).toEqual([])
  })
})
