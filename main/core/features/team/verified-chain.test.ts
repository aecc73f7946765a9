/**
 * The kept head (verified-chain.ts): a chain cut at its tail or rewritten at the head this desk
 * verified is a rollback or a fork, named with both heads, from a running desk's next read and from
 * a restarted desk's first; a longer chain raises the kept head, never lowers it.
 */
import { describe, expect, it } from 'vitest'
import type { StoredRow } from '../../team'
import { ChainBuilder, asMember, operator } from '../../team/testing/team-fixture'
import type { ChainHead } from './binding'
import { VerifiedChain, type HeadKeeper } from './verified-chain'

const ann = operator('ann')
const bob = operator('bob')

async function chainOf(n: number): Promise<StoredRow[]> {
  const b = await ChainBuilder.genesis(ann, [asMember(ann, ['admin', 'trader'])])
  for (let i = 0; i < n; i++) await b.roster([{ op: 'add', ...asMember(operator(`m${i}`), ['approver']) }], [ann])
  await b.policy([{ id: 'rest', then: { effect: 'allow' } }], [ann])
  return b.rows()
}

function memoryKeeper(start: ChainHead | null = null): HeadKeeper & { writes: ChainHead[] } {
  let kept = start
  const writes: ChainHead[] = []
  return {
    writes,
    kept: () => kept,
    keep: async (h) => {
      writes.push(h)
      if (!kept || h.seq > kept.seq) kept = h
    },
  }
}

const reader = (rows: () => StoredRow[]) => async (from: bigint) => rows().filter((r) => r.seq >= from)
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code: string; details?: Record<string, unknown> }) => e,
  )

describe('the kept chain head', () => {
  it('keeps the highest verified head, and a restart with it refuses the chain cut at its tail, naming both heads', async () => {
    let rows = await chainOf(3)
    const keeper = memoryKeeper()
    const chain = new VerifiedChain(undefined, keeper)
    await chain.sync(reader(() => rows))
    const head = { seq: rows.at(-1)!.seq, digest: rows.at(-1)!.digest as `0x${string}` }
    expect(keeper.kept()).toEqual(head)

    rows = rows.slice(0, -2) // the tail deleted
    // Restarted: a fresh verifier with the kept head.
    const restarted = new VerifiedChain(undefined, keeper)
    const e = await failure(restarted.sync(reader(() => rows)))
    expect(e).toMatchObject({
      code: 'TeamChainRolledBack',
      details: { keptSeq: head.seq.toString(), keptDigest: head.digest, storeSeq: rows.at(-1)!.seq.toString() },
    })
    expect(restarted.report()).toMatchObject({ ok: false, broken: { seq: head.seq } })
    // Sticky: nothing verifies after a rollback on this desk.
    expect(await failure(restarted.sync(reader(() => rows)))).toMatchObject({ code: 'TeamChainRolledBack' })
    expect(keeper.kept()).toEqual(head) // never lowered
  })

  it('a running desk sees the rows it verified deleted on its next read', async () => {
    let rows = await chainOf(2)
    const chain = new VerifiedChain(undefined, memoryKeeper())
    await chain.sync(reader(() => rows))
    rows = rows.slice(0, -1)
    const e = await failure(chain.sync(reader(() => rows)))
    expect(e).toMatchObject({ code: 'TeamChainRolledBack', details: { storeSeq: rows.at(-1)!.seq.toString() } })
  })

  it('a different entry at the kept head is a fork', async () => {
    const rows = await chainOf(2)
    const other = await chainOf(3) // another chain (another genesis, so other digests) of greater length
    const keeper = memoryKeeper({ seq: rows.at(-1)!.seq, digest: rows.at(-1)!.digest as `0x${string}` })
    const e = await failure(new VerifiedChain(undefined, keeper).sync(reader(() => other)))
    expect(e).toMatchObject({ code: 'TeamChainRolledBack', details: { reason: expect.stringMatching(/another entry/) } })
  })

  it('a longer chain raises the kept head; the same head is not written again', async () => {
    const rows = await chainOf(3)
    const keeper = memoryKeeper({ seq: 1n, digest: rows[1]!.digest as `0x${string}` })
    const chain = new VerifiedChain(undefined, keeper)
    await chain.sync(reader(() => rows))
    await chain.sync(reader(() => rows))
    expect(keeper.writes).toHaveLength(1)
    expect(keeper.kept()?.seq).toBe(rows.at(-1)!.seq)
  })

  it('without a keeper (desk team verify, tests) nothing is kept and a shorter chain still verifies', async () => {
    const rows = await chainOf(1)
    const s = await new VerifiedChain(undefined).sync(reader(() => rows.slice(0, -1)))
    expect(s.head?.seq).toBe(rows.at(-2)!.seq)
    expect(bob.address).toMatch(/^0x/)
  })
})
