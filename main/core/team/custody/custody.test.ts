/**
 * Custody primitives (issue 32): a key split 2 of 3 rebuilds from any two shares and from no single
 * one; a share sealed to a holder opens only with that holder's key and for what it was bound to; a
 * recovery share file refuses a typo.
 */
import { secp256k1 } from '@noble/curves/secp256k1'
import { describe, expect, it } from 'vitest'
import { addressOfKey, combineKey, splitKey } from './key-split'
import { recoveryShare, parseRecoveryShare } from './recovery-file'
import { openShare, parseEnvelope, sealShare, shareAad } from '../../vault/share-envelope'

const key = () => secp256k1.utils.randomPrivateKey()
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code: string }) => e,
  )

describe('custody: Shamir split of an owner key', () => {
  it('any 2 of 3 shares rebuild the key (checked against the account), one share does not', async () => {
    const k = key()
    const account = addressOfKey(k)
    const shares = await splitKey(k, 3, 2)
    expect(shares).toHaveLength(3)
    for (const pair of [
      [0, 1],
      [0, 2],
      [1, 2],
    ]) {
      const rebuilt = await combineKey(
        pair.map((i) => shares[i]!),
        account,
      )
      expect(Buffer.from(rebuilt).equals(Buffer.from(k))).toBe(true)
      rebuilt.fill(0)
    }
    expect(await failure(combineKey([shares[0]!], account))).toMatchObject({ code: 'CustodySharesMissing' })
    // No share carries the key: none equals it, and none is the key's address's key.
    for (const s of shares) expect(Buffer.from(s).includes(Buffer.from(k))).toBe(false)
  })

  it("shares of another key, or another split of the same key, combine to something that is not the account's key: refused", async () => {
    const k = key()
    const account = addressOfKey(k)
    const a = await splitKey(k, 3, 2)
    const other = await splitKey(key(), 3, 2)
    expect(await failure(combineKey([a[0]!, other[1]!], account))).toMatchObject({ code: 'CustodyKeyMismatch' })
    const resplit = await splitKey(k, 3, 2)
    // Shares of two different splits do not mix (each split has its own random polynomial).
    expect(await failure(combineKey([a[0]!, resplit[1]!], account))).toMatchObject({ code: 'CustodyKeyMismatch' })
  })

  it('refuses thresholds that would let one share sign', async () => {
    expect(await failure(splitKey(key(), 3, 1))).toMatchObject({ code: 'CustodyBadInput' })
    expect(await failure(splitKey(key(), 1, 2))).toMatchObject({ code: 'CustodyBadInput' })
  })
})

describe('custody: a share sealed to its holder', () => {
  const bind = { teamId: '0x' + '11'.repeat(32), account: '0x' + '22'.repeat(20), version: 1, index: 1, holder: '0x' + '33'.repeat(20) }

  it('opens with the holder key and the same binding only', () => {
    const holder = key()
    const share = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9])
    const env = sealShare(secp256k1.getPublicKey(holder, true), share, shareAad(bind))
    const stored = parseEnvelope(JSON.stringify(env))
    expect(JSON.stringify(env)).not.toContain('010203')
    expect(openShare(holder, stored, shareAad(bind))).toEqual(share)
    expect(openShare(key(), stored, shareAad(bind))).toBeNull()
    expect(openShare(holder, stored, shareAad({ ...bind, version: 2 }))).toBeNull()
    expect(openShare(holder, stored, shareAad({ ...bind, holder: '0x' + '44'.repeat(20) }))).toBeNull()
    const edited = { ...stored, ct: stored.ct.slice(0, -2) + (stored.ct.endsWith('00') ? '01' : '00') }
    expect(openShare(holder, edited, shareAad(bind))).toBeNull()
  })

  it('a malformed envelope is a typed error', () => {
    expect(() => parseEnvelope('{')).toThrow(/not JSON/)
    expect(() => parseEnvelope(JSON.stringify({ v: 1, epk: '0x00', nonce: '0x', ct: '0x' }))).toThrow(/malformed/)
  })
})

describe('custody: the offline recovery share file', () => {
  it('round-trips, and a changed character is refused by its checksum', () => {
    const share = new Uint8Array(33).fill(7)
    const file = recoveryShare({
      teamId: '0x' + 'aa'.repeat(32),
      account: '0x' + 'bb'.repeat(20),
      version: 1,
      threshold: 2,
      shares: 3,
      share,
    })
    const text = JSON.stringify(file, null, 2)
    const back = parseRecoveryShare(text)
    expect(back.share).toEqual(share)
    expect(back.meta).toMatchObject({ version: 1, threshold: 2, shares: 3 })
    const typo = text.replace('"threshold": 2', '"threshold": 3')
    expect(() => parseRecoveryShare(typo)).toThrow(/checksum/)
    expect(() => parseRecoveryShare('nope')).toThrow(/not JSON/)
  })
})

describe('custody: the record in the team chain (admin quorum)', () => {
  it('an admin-signed custody entry verifies and puts the split in force; a non-member holder or a skipped version is refused', async () => {
    const { ChainBuilder, asMember, operator } = await import('../testing/team-fixture')
    const { custodyEntry } = await import('../authoring')
    const { signedEntry } = await import('../entry')
    const { toStoredRow, verifyChain } = await import('../chain')
    const ann = operator('ann')
    const bob = operator('bob')
    const b = await ChainBuilder.genesis(ann, [asMember(ann, ['admin', 'trader']), asMember(bob, ['approver'])])
    const account = '0x' + '5a'.repeat(20)
    const record = {
      account,
      version: 1,
      threshold: 2,
      holders: [
        { address: ann.address.toLowerCase(), index: 1 },
        { address: bob.address.toLowerCase(), index: 2 },
      ],
      recovery: { index: 3, checksum: '0x' + '77'.repeat(32) },
      sharesDigest: '0x' + '66'.repeat(32),
    }
    const e = await signedEntry(b.teamId, custodyEntry(b.state, record), [ann])
    const report = await verifyChain([...b.rows(), toStoredRow(e)])
    expect(report.ok).toBe(true)
    expect(report.state.custody.get(account)).toEqual(record)
    expect(() =>
      custodyEntry(b.state, { ...record, holders: [...record.holders.slice(0, 1), { address: '0x' + '99'.repeat(20), index: 2 }] }),
    ).toThrow(/not a member/)
    expect(() => custodyEntry(b.state, { ...record, version: 2 })).toThrow(/version must be 1/)
    // A threshold one member could reach alone (with the offline share) is refused.
    expect(() => custodyEntry(b.state, { ...record, threshold: 2, holders: record.holders.slice(0, 1) })).toThrow(/reach the threshold/)
  })
})
