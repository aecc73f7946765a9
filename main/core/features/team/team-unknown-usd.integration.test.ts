/**
 * Issue 30.2: a value the desk cannot price is judged at its worst case, never as zero. With the
 * sandbox's oracle unavailable (no fresh mark), a 100 USDC transfer under "50 USD or more needs 1
 * approval" becomes a proposal that says its value is unknown (in the chain every desk verifies, and
 * on the approver's desk), and nothing reaches the exchange until it is approved; then it runs once.
 * With the oracle back, a 10 USDC transfer is allowed as before. Real PostgreSQL, sandbox ground truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TeamProposalDetail, TeamProposalView, WriteOutcome } from '../../../contract/types'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { startTeamOfTwo, type SharedSandboxDesk } from '../../../testing/team-desks'
import { TeamStore, verifyStore } from '../../team'

const FROM = devOwner(0).address.toLowerCase()
const TO = devOwner(2).address.toLowerCase()

describe('an unknown USD value is judged at its worst case (real PostgreSQL, sandbox ground truth)', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  let store: TeamStore
  let close: () => Promise<void>
  const truth = () => sandbox.trading.groundTruth()

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    ;({ a, b, close } = await startTeamOfTwo(sandbox, db))
    store = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
    await a.call('team.policy.set', {
      rules: [
        { id: 'big-transfers', kinds: ['transfer'], minUsd: '50', then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
  })
  afterAll(async () => {
    await close?.()
    await store?.close()
    await sandbox?.stop()
    await db?.stop()
  })

  it('oracle unavailable: a 100 USDC transfer needs the approval, is recorded as of unknown value, and nothing is sent until approved', async () => {
    sandbox.trading.faults.oracleUnavailable = 'ProviderError'
    await new Promise((r) => setTimeout(r, 5500)) // the desk's marks go stale past 5 s
    const before = truth().length
    const out = await a.call<WriteOutcome>('transfer.submit', { from: FROM, to: TO, assetId: 1, amount: '100' })
    expect(out.submission.state).toBe('proposed')
    const id = out.proposalId!
    expect(truth()).toHaveLength(before)

    // The chain as any desk verifies it: the rule a value of 50 USD or more meets, the value unknown.
    const inChain = (await verifyStore(store)).state.proposals.get(id)
    expect(inChain).toMatchObject({ rule: 'big-transfers', usd: null, windowUsd: null, needs: { count: 1 } })

    const d = await a.call<TeamProposalDetail>('team.proposal', { id })
    expect(d).toMatchObject({ rule: 'big-transfers', usd: null, usdUnknown: expect.stringMatching(/^value unknown .*worst case$/) })
    expect(d.review.find((f) => f.key === 'usd')).toMatchObject({ state: 'unreadable', note: expect.stringMatching(/worst case/) })

    // The approver's desk reads it from the chain the same way: unknown, never "none" or $0.
    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).find((p) => p.id === id), {
        timeout: 10_000,
      })
      .toMatchObject({ usd: null, usdUnknown: expect.stringMatching(/worst case/), amount: '100 USDC' })
    expect(truth()).toHaveLength(before)

    await b.call('team.approve', { id })
    const done = await a.call<WriteOutcome>('team.execute', { id })
    expect(done.submission).toMatchObject({ proposalId: id })
    expect(truth().filter((x) => x.cloid === done.submission.cloid)).toHaveLength(1)
  })

  it('oracle back: a 10 USDC transfer is valued and allowed by the rest rule, once', async () => {
    sandbox.trading.faults.oracleUnavailable = null
    await expect
      .poll(
        async () => {
          const out = await a.call<WriteOutcome>('transfer.submit', { from: FROM, to: TO, assetId: 1, amount: '10' })
          return out.submission.state === 'proposed' ? 'proposed' : truth().filter((x) => x.cloid === out.submission.cloid).length
        },
        { timeout: 15_000, interval: 1000 },
      )
      .toBe(1)
  })
})
