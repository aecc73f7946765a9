/**
 * Issue 30.4: every command's documented exit code holds, through one mechanism (the context's
 * verdict, never a `process.exitCode` the router overwrites): a command's own failure (a broken
 * chain, an unresolved entry) exits 1 even after printing; a write that became a team proposal
 * exits 5 and names the proposal, never "journal #0"; an unknown outcome (4) outranks a proposal.
 */
import { describe, expect, it } from 'vitest'
import { DeskError } from '../../contract/errors'
import { outcomeText } from './desk-write'
import { EXIT_PROPOSED, exitForState } from './context'
import { runCli, type CommandGroup } from './router'
import { capturedIo } from './testing/captured-io'

const PID = '0x' + 'ab'.repeat(32)

function group(
  run: Parameters<CommandGroup['commands'][number]['run']>[0] extends infer C ? (ctx: C) => Promise<void> : never,
): CommandGroup {
  return { name: 'probe', summary: 'test', commands: [{ name: 'go', summary: 'test', run }] }
}
async function exitOf(g: CommandGroup, ...extra: string[]) {
  const { io, out, err } = capturedIo()
  const code = await runCli(['probe', 'go', ...extra], [g], io)
  return { code, out: out(), err: err() }
}

describe('desk exit codes', () => {
  it("a command's own failure exits 1 even when it printed a result (desk team verify on a broken chain, journal, orders, policy)", async () => {
    const r = await exitOf(
      group(async (ctx) => {
        ctx.print('BROKEN at entry 7', { ok: false })
        ctx.fail(1)
      }),
    )
    expect(r.code).toBe(1)
  })

  it('a proposed write exits 5 and prints its proposal id, not a journal entry', async () => {
    const o = { journalId: 0, cloid: '0x01', state: 'proposed', txHash: null, finalStatus: null, code: null, proposalId: PID }
    expect(outcomeText(o)).toBe(
      `proposed: waiting for approvals as team proposal ${PID}; nothing was signed or sent (desk team show ${PID})`,
    )
    expect(outcomeText(o)).not.toMatch(/journal #/)
    const r = await exitOf(
      group(async (ctx) => ctx.print(outcomeText(o), { outcome: o })),
      '--json',
    )
    expect(r.code).toBe(EXIT_PROPOSED)
    expect(JSON.parse(r.out)).toMatchObject({ outcome: { state: 'proposed', proposalId: PID } })
    expect(exitForState('proposed')).toBe(5)
  })

  it('an operation stopped by a proposal (WriteProposed) exits 5 and names the proposal', async () => {
    const r = await exitOf(
      group(async () => {
        throw new DeskError('WriteProposed', 'Approve an API key: waiting for approvals', { proposalId: PID })
      }),
    )
    expect(r.code).toBe(5)
    expect(r.err).toContain(`team proposal ${PID} waits for approvals`)
  })

  it('an unknown outcome (4) outranks a proposal (5) and a failure at execution (3); success alone exits 0', async () => {
    const print = (...states: string[]) =>
      group(async (ctx) => {
        for (const state of states) ctx.print(state, { outcome: { state } })
      })
    expect((await exitOf(print('proposed', 'unknown'))).code).toBe(4)
    expect((await exitOf(print('unknown', 'proposed'))).code).toBe(4)
    expect((await exitOf(print('failed', 'proposed'))).code).toBe(3)
    expect((await exitOf(print('accepted', 'reconciled'))).code).toBe(0)
    expect((await exitOf(print('accepted', 'rejected'))).code).toBe(1)
  })
})
