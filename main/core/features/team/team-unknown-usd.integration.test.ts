/**
 * Issue 30.2: a value the desk cannot price is judged at its worst case, never as zero. With the
 * sandbox's oracle unavailable (no fresh mark), a 100 USDC transfer under "50 USD or more needs 1
 * approval" becomes a proposal that says its value is unknown, and nothing reaches the exchange;
 * with the oracle back, a 10 USDC transfer is allowed as before. Real PostgreSQL, sandbox ground truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TeamProposalDetail, WriteOutcome } from '../../../contract/types'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { startTeamOfTwo, type SharedSandboxDesk } from '../../../testing/team-desks'

const FROM = devOwner(0).address.toLowerCase()
const TO = devOwner(2).address.toLowerCase()

describe('an unknown USD value is judged at its worst case (real PostgreSQL, sandbox ground truth)', () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let close: () => Promise<void>
  const truth = () => sandbox.trading.groundTruth()

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    ;({ a, close } = await startTeamOfTwo(sandbox, db))
    await a.call('team.policy.set', {
      rules: [
        { id: 'big-transfers', kinds: ['transfer'], minUsd: '50', then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
    })
  })
  afterAll(async () => {
    await close?.()
    await sandbox?.stop()
    await db?.stop()
  })

  it('oracle unavailable: a 100 USDC transfer needs the approval, records its value as unknown, and nothing is sent', async () => {
    sandbox.trading.faults.oracleUnavailable = 'ProviderError'
    await new Promise((r) => setTimeout(r, 5500)) // the desk's marks go stale past 5 s
    const before = truth().length
    const out = await a.call<WriteOutcome>('transfer.submit', { from: FROM, to: TO, assetId: 1, amount: '100' })
    expect(out.submission.state).toBe('proposed')
    expect(truth()).toHaveLength(before)
    const d = await a.call<TeamProposalDetail>('team.proposal', { id: out.proposalId! })
    expect(d).toMatchObject({ rule: 'big-transfers', usd: null, needs: { count: 1 } })
    expect(d.review.find((f) => f.key === 'usd')).toMatchObject({ state: 'unreadable', note: expect.stringMatching(/worst case/) })
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
