/**
 * Team policy rules on an account group, and writes the policy allows outright, through the app's
 * channels: two desks, one real PostgreSQL, one sandbox whose ground truth says what executed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TeamPolicyView, TeamProposalView, TeamVerifyView, WriteOutcome } from '../../../contract/types'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { startTeamOfTwo, type SharedSandboxDesk } from '../../../testing/team-desks'

const owner = (i: number) => devOwner(i).address.toLowerCase()

describe('team policy: account groups and writes allowed outright', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let team: Awaited<ReturnType<typeof startTeamOfTwo>> | undefined
  const truth = () => sandbox.trading.groundTruth()

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    team = await startTeamOfTwo(sandbox, db)
    ;({ a, b } = team)
  })
  afterAll(async () => {
    await team?.close()
    await sandbox?.stop()
    await db?.stop()
  })

  it('a rule on a group catches its members only; every desk reads the same groups from the signed policy', async () => {
    const set = await a.call<TeamPolicyView>('team.policy.set', {
      groups: { 'Reserve accounts': [devOwner(1).address, devOwner(4).address] },
      rules: [
        { id: 'reserve', kinds: ['transfer'], groups: ['Reserve accounts'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'window', kinds: ['transfer'], minWindowUsd: '25', then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
    expect(set.groups).toEqual({ 'Reserve accounts': [owner(1), owner(4)] })
    expect(set.rules[0]).toMatchObject({ id: 'reserve', groups: ['Reserve accounts'] })
    await expect.poll(async () => (await b.call<TeamPolicyView>('team.policy')).groups, { timeout: 10_000 }).toEqual(set.groups)

    const before = truth().length
    const fromReserve = await a.call<WriteOutcome>('transfer.submit', { from: owner(1), to: owner(0), assetId: 1, amount: '1' })
    expect(fromReserve.submission.state).toBe('proposed')
    expect(truth()).toHaveLength(before) // nothing sent
    const p = await b.call<TeamProposalView>('team.proposal', { id: fromReserve.proposalId })
    expect(p).toMatchObject({ rule: 'reserve', needs: { count: 1, roles: ['approver'] } })

    // A group referring to nothing defined is refused, and nothing changes.
    await expect(a.call('team.policy.set', { rules: [{ id: 'x', groups: ['Nope'], then: { effect: 'allow' } }] })).rejects.toMatchObject({
      message: expect.stringMatching(/no account group named "Nope"/),
    })
    expect((await a.call<TeamPolicyView>('team.policy')).version).toBe(set.version)
  })

  it('allowed transfers are recorded with their outcome and add up: the one that crosses the window waits for approval', async () => {
    const send = (amount: string) => a.call<WriteOutcome>('transfer.submit', { from: owner(0), to: owner(2), assetId: 1, amount })
    const first = await send('10')
    const second = await send('10')
    for (const w of [first, second]) {
      expect(w.submission.state).not.toBe('proposed')
      expect(truth().filter((x) => x.cloid === w.submission.cloid)).toHaveLength(1)
    }
    // Both are in the team's history, on B too, each with its outcome and no approval asked for.
    await expect
      .poll(
        async () =>
          (await b.call<TeamProposalView[]>('team.proposals', { view: 'history' }))
            .filter((p) => p.needs.count === 0)
            .map((p) => [p.cloid, p.rule, p.outcome?.state]),
        { timeout: 10_000 },
      )
      .toEqual(
        expect.arrayContaining([
          [second.submission.cloid, 'rest', 'accepted'],
          [first.submission.cloid, 'rest', 'accepted'],
        ]),
      )
    expect(await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).toHaveLength(1) // the reserve one only
    // A's journal names the record each allowed write made.
    const history = await b.call<TeamProposalView[]>('team.proposals', { view: 'history' })
    for (const w of [first, second]) expect(w.submission.proposalId).toBe(history.find((p) => p.cloid === w.submission.cloid)!.id)
    // 10 + 10 moved; 10 more reaches the 25 USD window: a proposal, nothing sent.
    const before = truth().length
    const third = await send('10')
    expect(third.submission.state).toBe('proposed')
    expect(truth()).toHaveLength(before)
    expect(await b.call<TeamProposalView>('team.proposal', { id: third.proposalId })).toMatchObject({ rule: 'window' })
    expect(await b.call<TeamVerifyView>('team.verify')).toMatchObject({ ok: true, broken: null })
  })
})
