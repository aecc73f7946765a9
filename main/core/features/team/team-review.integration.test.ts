/**
 * Issue 31.1, below the screens: the approver's review compares fields, not text lines. An honest
 * proposal shows no difference on the approving desk (which holds no account of the team); a
 * proposal whose stated destination is not the one its exact action pays shows exactly that field
 * as different. Approving asks the operator to confirm a summary naming amount, destination and
 * value; a declined confirmation approves nothing. Real PostgreSQL, one sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandbox, type SandboxHandle } from '../../../../sandbox'
import { devOwner } from '../../../../sandbox/scenario/dev-keys'
import type { TeamProposalDetail, TeamProposalView, WriteOutcome } from '../../../contract/types'
import { TeamStore, lifecycleEntry, proposalPayload, signedEntry, verifyStore } from '../../team'
import { operator } from '../../team/testing/team-fixture'
import { TEST_PASSPHRASE } from '../../../testing/desk-on-sandbox'
import { startPostgres, type PostgresHandle } from '../../../testing/postgres'
import { startDeskOnSharedSandbox, type SharedSandboxDesk } from '../../../testing/team-desks'

const OWNER = devOwner(0).address.toLowerCase()
const OTHER = devOwner(2).address.toLowerCase()
const ATTACKER = '0x3333333333333333333333333333333333333333'

describe("the approver's review (real PostgreSQL, one sandbox)", () => {
  let db: PostgresHandle
  let sandbox: SandboxHandle
  let a: SharedSandboxDesk
  let b: SharedSandboxDesk
  const mallory = operator('mallory')

  beforeAll(async () => {
    db = await startPostgres()
    sandbox = await startSandbox({ port: 0, seed: true, rateLimits: false, botIntervalMs: 0, markStepBps: 0 })
    a = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0 } })
    b = await startDeskOnSharedSandbox(sandbox, { team: { recoverEveryMs: 0 }, confirmApprovals: false })
    for (const d of [a, b]) await d.call('vault.create', { passphrase: TEST_PASSPHRASE })
    await a.call('accounts.importSandboxKeys')
    a.autoConfirm()
    const cfg = { connectionString: db.connectionString, password: db.password, passphrase: TEST_PASSPHRASE }
    for (const d of [a, b]) await d.call('team.configure', cfg)
    await a.call('team.init', { teamName: 'Treasury ops', name: 'Ann', passphrase: TEST_PASSPHRASE })
    const { address: bob } = await b.call<{ address: string }>('team.join', { passphrase: TEST_PASSPHRASE })
    await a.call('team.members.add', { address: bob, name: 'Bob', roles: ['approver'] })
    await a.call('team.members.add', { address: mallory.address, name: 'Mal', roles: ['trader'] })
    await a.call('team.policy.set', {
      rules: [
        { id: 'transfer-4eyes', kinds: ['transfer'], then: { effect: 'approve', count: 1, roles: ['approver'] } },
        { id: 'rest', then: { effect: 'allow' } },
      ],
      // The team's names, signed with its policy: the approver's desk (no account of its own) shows them.
      names: { [OWNER]: 'Treasury main', [OTHER]: 'Payments' },
    })
  })

  afterAll(async () => {
    await a?.close()
    await b?.close()
    await sandbox?.stop()
    await db?.stop()
  })

  /** Waits until B has verified proposal `id`, then reads B's review of it. */
  async function reviewOnB(id: string): Promise<TeamProposalDetail> {
    await expect
      .poll(async () => (await b.call<TeamProposalView[]>('team.proposals', { view: 'needsMe' })).some((p) => p.id === id), {
        timeout: 5000,
      })
      .toBe(true)
    return b.call<TeamProposalDetail>('team.proposal', { id })
  }

  it('an honest proposal: every field the approver reads matches; nothing is marked', async () => {
    const out = await a.call<WriteOutcome>('transfer.submit', { from: OWNER, to: OTHER, assetId: 1, amount: '1250.5' })
    const d = await reviewOnB(out.proposalId!)
    expect(d.review.filter((f) => f.state === 'differs')).toEqual([])
    const by = Object.fromEntries(d.review.map((f) => [f.key, f]))
    expect(by.amount).toMatchObject({ mine: '1,250.5 USDC', state: 'same' })
    expect(by.destination).toMatchObject({ initiator: OTHER, mine: OTHER, state: 'same' })
    expect(by.usd!.state).toMatch(/same|unreadable/)
    expect(by.signer).toMatchObject({ mine: 'owner key' })
    expect(d.names).toEqual({ [OWNER]: 'Treasury main', [OTHER]: 'Payments' })
    // B's own preview cannot run (it holds no key of the account): said for what it is, not as a policy refusal of the write.
    if (d.recomputeError) expect(d.recomputeError).not.toMatch(/^DestinationNotAllowed/)
  })

  it('a proposal whose stated destination is not the one its action pays: exactly that field differs, and a declined confirmation approves nothing', async () => {
    const store = await TeamStore.open({ connectionString: db.connectionString, password: db.password })
    let id: string
    try {
      const { state } = await verifyStore(store)
      const at = Date.now()
      const action = { type: 'transfer', to: ATTACKER, asset_id: '1', amount: '100000000', cloid: '0x' + 'ab'.repeat(16) }
      const payload = proposalPayload({
        network: 'sandbox',
        exchange: state.proposals.values().next().value!.exchange,
        account: OWNER,
        signer: OWNER,
        kind: 'transfer',
        action,
        cloid: action.cloid,
        title: 'Transfer 1 USDC',
        preview: ['transfer 1 USDC', `to ${OTHER}`],
        usd: 100000000n,
        windowUsd: 0n,
        destination: OTHER, // what the approver is told
        policyVersion: state.policy!.version,
        rule: 'transfer-4eyes',
        needs: { count: 1, roles: ['approver'] },
        at,
        expiresAt: at + 3600_000,
      })
      const entry = await signedEntry(state.roster!.teamId, lifecycleEntry(state, 'proposal', payload, mallory.address), [mallory])
      await store.append(entry)
      id = entry.digest
    } finally {
      await store.close()
    }
    const d = await reviewOnB(id)
    expect(d.review.filter((f) => f.state === 'differs').map((f) => f.key)).toEqual(['destination'])
    expect(d.review.find((f) => f.key === 'destination')).toMatchObject({ initiator: OTHER, mine: ATTACKER })

    // Approving asks first; the summary names what differs. Declined: nothing is approved.
    const asked = b.nextEvent<{ id: string; title: string; summary: string[] }>('confirm.request', (r) =>
      r.title.startsWith('Approve proposal:'),
    )
    const approving = b.call('team.approve', { id }).then(
      () => null,
      (e: { code: string }) => e,
    )
    const req = await asked
    expect(req.summary.join('\n')).toMatch(/DIFFERS from what this desk reads: Destination/)
    expect(req.summary.join('\n')).toContain(`destination: ${ATTACKER}`)
    await b.core.dispatch('confirm.respond', { id: req.id, approved: false }, { host: 'test' })
    expect(await approving).toMatchObject({ code: 'ConfirmationDeclined' })
    expect((await b.call<TeamProposalDetail>('team.proposal', { id })).approvals).toEqual([])
  })
})
