/**
 * API key changes behind team approvals: an agent approval and a revocation carry no cloid on the
 * exchange, so the decision step knows each by a key of its own; proposed on one desk, approved on
 * another, executed once from the proposal. Two desks, one real PostgreSQL, one sandbox whose
 * userAgents is the ground truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { AgentSlotView, TeamProposalDetail, TeamProposalView, WriteOutcome } from '../../../contract/types'
import { TeamStore, verifyStore } from '../../team'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { startTeamOfTwo, type SharedSandboxDesk } from '../../../testing/team-desks'

const owner = devOwner(0).address.toLowerCase()

describe('team approvals of API key changes (agent approve and revoke)', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let store: TeamStore
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let team: Awaited<ReturnType<typeof startTeamOfTwo>> | undefined
  let slot = -1
  const onExchange = async () => (await a.call<AgentSlotView[]>('agents.list', { owner })).find((s) => s.slot === slot)!

  /** The write is refused as proposed; its proposal id. */
  async function proposed(channel: string): Promise<string> {
    const e = (await a.call(channel, { owner, slot }).then(
      () => null,
      (x: unknown) => x,
    )) as { code: string; details: { proposalId: string } } | null
    expect(e?.code).toBe('WriteProposed')
    return e!.details.proposalId
  }

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    team = await startTeamOfTwo(sandbox, db)
    ;({ a, b } = team)
    await a.call('team.policy.set', {
      rules: [
        {
          id: 'api-keys',
          kinds: ['agent_approve', 'agent_revoke', 'agent_rotate'],
          then: { effect: 'approve', count: 1, roles: ['approver'] },
        },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
    store = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
    slot = (await a.call<AgentSlotView[]>('agents.list', { owner })).find((s) => s.agent === null)!.slot
  })
  afterAll(async () => {
    await team?.close()
    await store?.close()
    await sandbox?.stop()
    await db?.stop()
  })

  it('an approval waits for the approver, then runs once from the proposal with a key generated only then', async () => {
    const id = await proposed('agents.approve')
    expect((await onExchange()).agent).toBeNull() // nothing signed or sent
    const detail = await b.call<TeamProposalDetail>('team.proposal', { id })
    expect(detail).toMatchObject({ kind: 'agent_approve', channel: 'agents.approve', status: 'open', rule: 'api-keys' })
    // B's own reading of the slot from the exchange, beside A's lines.
    expect(detail.recomputed?.lines).toEqual([`slot ${slot} of ${owner} is empty now`])

    await b.call('team.approve', { id })
    const out = await a.call<WriteOutcome>('team.execute', { id })
    expect(out).toMatchObject({ proposalId: id, submission: { state: 'accepted', proposalId: id } })
    const agent = (await onExchange()).agent
    expect(agent).toMatch(/^0x[0-9a-f]{40}$/)
    // The stored bytes carry the key generated after the approval; the proposal carried none.
    const p = (await verifyStore(store)).state.proposals.get(id)!
    expect((JSON.parse(p.signed!.body) as { action: { agent: string } }).action.agent.toLowerCase()).toBe(agent!.toLowerCase())
    await expect
      .poll(
        async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'history' })).find((x) => x.id === id)?.outcome?.state,
        {
          timeout: 5000,
        },
      )
      .toBe('accepted')
    // Run again: refused typed before anything is signed (the slot is taken now), nothing appended.
    const head = (await verifyStore(store)).state.head!.seq
    await expect(a.call('team.execute', { id })).rejects.toMatchObject({ code: 'AgentSlotOccupied' })
    expect((await verifyStore(store)).state.head!.seq).toBe(head)
  })

  it('a revocation waits likewise and empties the slot once; a rotation under approvals is refused typed, nothing signed', async () => {
    const id = await proposed('agents.revoke')
    expect((await onExchange()).agent).not.toBeNull()
    await b.call('team.approve', { id })
    const out = await a.call<WriteOutcome>('team.execute', { id })
    expect(out.submission).toMatchObject({ state: 'accepted', proposalId: id })
    expect((await onExchange()).agent).toBeNull()

    const head = (await verifyStore(store)).state.head!.seq
    await expect(a.call('agents.rotate', { owner, slot })).rejects.toMatchObject({
      code: 'WriteBlocked',
      message: expect.stringMatching(/carries no cloid to match it when approved/),
    })
    expect((await verifyStore(store)).state.head!.seq).toBe(head)
    expect((await verifyStore(store)).ok).toBe(true)
  })
})
