import { describe, expect, it } from 'vitest'
import { toStoredRow, verifyChain, type StoredRow } from './chain'
import { atHead, rosterEntry } from './authoring'
import { signedEntry, unsignedEntry } from './entry'
import { ChainBuilder, asMember, operator } from './testing/team-fixture'

const ann = operator('ann') // first admin
const bob = operator('bob')
const cat = operator('cat')
const dan = operator('dan')

async function team() {
  const b = await ChainBuilder.genesis(ann, [asMember(ann, ['admin', 'approver']), asMember(bob, ['admin'])])
  await b.roster([{ op: 'add', address: cat.address, name: 'cat', roles: ['trader'] }], [ann])
  return b
}

describe('chain verification', () => {
  it('verifies genesis and a member added by the admin quorum, and builds the roster', async () => {
    const b = await team()
    const r = await verifyChain(b.rows())
    expect(r.ok).toBe(true)
    expect(r.verified).toBe(2)
    expect(r.state.roster?.members.get(cat.address.toLowerCase())?.roles).toEqual(['trader'])
    expect(r.state.roster?.adminQuorum).toBe(1)
    expect(r.state.head?.seq).toBe(1n)
  })

  it('raising the quorum makes a single admin signature insufficient', async () => {
    const b = await team()
    await b.roster([{ op: 'quorum', adminQuorum: 2 }], [ann])
    const lone = await signedEntry(b.teamId, rosterEntry(b.state, [{ op: 'roles', address: cat.address, roles: ['approver'] }]), [ann])
    const r = await verifyChain([...b.rows(), toStoredRow(lone)])
    expect(r.broken).toEqual({ seq: 3n, reason: '1 admin signature(s), the admin quorum is 2 (a roster change needs it)' })
    expect(r.state.roster?.members.get(cat.address.toLowerCase())?.roles).toEqual(['trader'])
    await b.roster([{ op: 'roles', address: cat.address, roles: ['approver'] }], [ann, bob])
    expect((await verifyChain(b.rows())).ok).toBe(true)
  })

  it('refuses a change signed for an older roster (its basis is not the last change), naming it; the position-signed form still verifies', async () => {
    const b = await team()
    const early = rosterEntry(b.state, [{ op: 'add', address: dan.address, name: 'dan', roles: ['admin'] }])
    await b.roster([{ op: 'roles', address: cat.address, roles: ['approver'] }], [ann])
    // Signed when Dan's addition was made, appended after another roster change: refused.
    const late = await signedEntry(b.teamId, atHead(b.state, { kind: 'roster', payload: early.payload }), [ann])
    const r = await verifyChain([...b.rows(), toStoredRow(late)])
    expect(r.broken?.seq).toBe(3n)
    expect(r.broken?.reason).toMatch(/^signed for another roster and policy/)
    expect(r.state.roster?.members.has(dan.address.toLowerCase())).toBe(false)
    // A change without a basis is signed as its chain position (every admin at once), as before.
    const plain = unsignedEntry(3n, b.state.head!.digest, 'roster', {
      changes: [{ op: 'add', address: dan.address.toLowerCase(), name: 'dan', roles: ['viewer'] }],
    })
    expect((await verifyChain([...b.rows(), toStoredRow(await signedEntry(b.teamId, plain, [ann]))])).ok).toBe(true)
  })

  it('refuses an entry signed by an admin who was removed, naming its seq', async () => {
    const b = await team()
    await b.roster([{ op: 'remove', address: bob.address }], [ann])
    const byBob = await signedEntry(
      b.teamId,
      rosterEntry(b.state, [{ op: 'add', address: dan.address, name: 'dan', roles: ['approver'] }]),
      [bob],
    )
    const r = await verifyChain([...b.rows(), toStoredRow(byBob)])
    expect(r.ok).toBe(false)
    expect(r.broken?.seq).toBe(3n)
    expect(r.broken?.reason).toMatch(/not an admin \(or not a member\)/)
    expect(r.verified).toBe(3)
    expect(r.state.roster?.members.has(dan.address.toLowerCase())).toBe(false)
  })

  it('refuses a forged signature (a non-member signing as an admin)', async () => {
    const b = await team()
    const forged = await signedEntry(b.teamId, rosterEntry(b.state, [{ op: 'roles', address: cat.address, roles: ['admin'] }]), [dan])
    const row = toStoredRow(forged)
    row.signatures = row.signatures.replace(dan.address.toLowerCase(), ann.address.toLowerCase())
    const r = await verifyChain([...b.rows(), row])
    expect(r.broken).toEqual({ seq: 2n, reason: `signature of ${ann.address.toLowerCase()} does not verify` })
  })

  it('refuses reordered entries at the first one out of place', async () => {
    const b = await team()
    await b.roster([{ op: 'add', address: dan.address, name: 'dan', roles: ['viewer'] }], [ann])
    const rows = b.rows()
    const swapped: StoredRow[] = [rows[0]!, { ...rows[2]!, seq: 1n }, { ...rows[1]!, seq: 2n }]
    const r = await verifyChain(swapped)
    expect(r.broken?.seq).toBe(1n)
    expect(r.broken?.reason).toMatch(/does not link to the entry before/)
    expect(r.verified).toBe(1)
  })

  it('refuses a chain whose genesis is not the pinned one, and a change that leaves too few admins', async () => {
    const b = await team()
    const other = await ChainBuilder.genesis(dan, [asMember(dan, ['admin'])])
    const r = await verifyChain(other.rows(), { genesisDigest: b.entries[0]!.digest })
    expect(r.broken).toEqual({ seq: 0n, reason: "not this team's genesis (the chain was replaced)" })
    await expect(
      b.roster(
        [
          { op: 'remove', address: ann.address },
          { op: 'remove', address: bob.address },
        ],
        [ann],
      ),
    ).rejects.toThrow(/0 admin\(s\), fewer than the admin quorum of 1/)
  })

  it('stores policy versions in the chain, changed only by admins, versions in order', async () => {
    const b = await team()
    await b.policy(
      [{ id: 'big-withdrawals', kinds: ['withdraw'], minUsd: '10000', then: { effect: 'approve', count: 2, roles: ['approver'] } }],
      [ann],
    )
    await b.policy([{ id: 'all', then: { effect: 'allow' } }], [bob])
    const r = await verifyChain(b.rows())
    expect(r.ok).toBe(true)
    expect(r.state.policy?.version).toBe(2)
    expect(r.state.policyHistory.map((p) => [p.version, p.seq])).toEqual([
      [1, 2n],
      [2, 3n],
    ])
    const byTrader = await signedEntry(
      b.teamId,
      { seq: 4n, prev: b.state.head!.digest, kind: 'policy', payload: '{"rules":[],"version":3}' },
      [cat],
    )
    expect((await verifyChain([...b.rows(), toStoredRow(byTrader)])).broken?.reason).toMatch(/not an admin/)
    const skipped = await signedEntry(
      b.teamId,
      { seq: 4n, prev: b.state.head!.digest, kind: 'policy', payload: '{"rules":[],"version":5}' },
      [ann],
    )
    expect((await verifyChain([...b.rows(), toStoredRow(skipped)])).broken?.reason).toBe('policy version must be 3, got 5')
  })
})

describe('verification from a head this desk verified before', () => {
  it('skips only the ECDSA math up to the pinned head and still refuses a rewritten chain', async () => {
    const b = await team()
    await b.roster([{ op: 'add', address: dan.address, name: 'dan', roles: ['viewer'] }], [ann])
    const rows = b.rows()
    const trustedHead = { seq: 1n, digest: b.entries[1]!.digest }
    expect((await verifyChain(rows, { trustedHead })).ok).toBe(true)
    // After the head, signatures are checked as always.
    const badSigAfter = rows.map((r) =>
      r.seq === 2n ? { ...r, signatures: r.signatures.replace(/"signature":"0x../, '"signature":"0x00') } : r,
    )
    expect((await verifyChain(badSigAfter, { trustedHead })).broken).toEqual({
      seq: 2n,
      reason: `signature of ${ann.address.toLowerCase()} does not verify`,
    })
    // A rewrite below the head (entry 1 re-made and re-signed by a non-admin with a valid link) is refused.
    const forged = toStoredRow(
      await signedEntry(
        b.teamId,
        {
          seq: 1n,
          prev: b.entries[0]!.digest,
          kind: 'roster',
          payload: '{"changes":[{"address":"' + dan.address.toLowerCase() + '","name":"dan","op":"add","roles":["admin"]}]}',
        },
        [ann],
      ),
    )
    const r = await verifyChain([rows[0]!, forged, rows[2]!], { trustedHead })
    expect(r.broken).toEqual({ seq: 1n, reason: 'differs from the entry this desk verified before (the chain was rewritten)' })
    // Authorisation is still checked below the head: a non-admin's entry there is refused.
    const byCat = toStoredRow(
      await signedEntry(
        b.teamId,
        rosterEntry({ ...b.state, head: { seq: 0n, digest: b.entries[0]!.digest }, governance: b.entries[0]!.digest }, [
          { op: 'quorum', adminQuorum: 1 },
        ]),
        [cat],
      ),
    )
    expect(
      (await verifyChain([rows[0]!, byCat], { trustedHead: { seq: 1n, digest: byCat.digest as `0x${string}` } })).broken?.reason,
    ).toMatch(/not an admin/)
  })
})
