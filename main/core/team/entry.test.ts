import { hashTypedData, recoverTypedDataAddress, type Hex } from 'viem'
import { sign } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { canonicalJson, parseCanonical } from './canonical'
import { entryDigest, entryTypedData, signEntry, unsignedEntry, ZERO_HASH } from './entry'
import { SignatureVerifier } from './signatures'
import { operator } from './testing/team-fixture'

const TEAM: Hex = `0x${'ab'.repeat(32)}`

describe('canonical payloads', () => {
  it('sorts keys, drops undefined, and refuses floats and non-canonical text', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: undefined })).toBe('{"a":[true,null,"x"],"b":1}')
    expect(() => canonicalJson({ amount: 1.5 })).toThrow(/safe integers/)
    expect(() => canonicalJson({ when: new Date() })).toThrow(/plain objects/)
    expect(() => parseCanonical('{"b":1,"a":2}')).toThrow(/canonical/)
    expect(() => parseCanonical('{"a": 2}')).toThrow(/canonical/)
    expect(parseCanonical('{"a":2,"b":1}')).toEqual({ a: 2, b: 1 })
  })
})

describe('entry digest', () => {
  it('is the EIP-712 hash of the typed data a wallet signs', async () => {
    const e = unsignedEntry(7n, `0x${'12'.repeat(32)}`, 'roster', { changes: [{ op: 'quorum', adminQuorum: 2 }] })
    expect(entryDigest(TEAM, e)).toBe(hashTypedData(entryTypedData(TEAM, e) as Parameters<typeof hashTypedData>[0]))
    const op = operator('ann')
    const sig = await signEntry(op, TEAM, e)
    expect(
      await recoverTypedDataAddress({ ...(entryTypedData(TEAM, e) as Parameters<typeof hashTypedData>[0]), signature: sig.signature }),
    ).toBe(op.address)
  })

  it('binds the team, the seq, the link and the payload', () => {
    const e = unsignedEntry(1n, ZERO_HASH, 'policy', { version: 1, rules: [] })
    const d = entryDigest(TEAM, e)
    expect(entryDigest(`0x${'cd'.repeat(32)}`, e)).not.toBe(d)
    expect(entryDigest(TEAM, { ...e, seq: 2n })).not.toBe(d)
    expect(entryDigest(TEAM, { ...e, prev: `0x${'01'.repeat(32)}` })).not.toBe(d)
    expect(entryDigest(TEAM, { ...e, payload: '{"rules":[],"version":2}' })).not.toBe(d)
  })
})

describe('signature verifier', () => {
  it('accepts the signer on first sight (recovery) and afterwards (cached key), and nobody else', async () => {
    const ann = operator('ann')
    const bob = operator('bob')
    const v = new SignatureVerifier()
    const d1 = entryDigest(TEAM, unsignedEntry(1n, ZERO_HASH, 'roster', { n: 1 }))
    const d2 = entryDigest(TEAM, unsignedEntry(2n, ZERO_HASH, 'roster', { n: 2 }))
    const s1 = await sign({ hash: d1, privateKey: ann.key, to: 'hex' })
    const s2 = await sign({ hash: d2, privateKey: ann.key, to: 'hex' })
    expect(await v.verify(d1, ann.address, s1)).toBe(true)
    expect(await v.verify(d2, ann.address, s2)).toBe(true) // cached path
    expect(await v.verify(d2, ann.address, s1)).toBe(false) // right key, other digest
    expect(await v.verify(d1, bob.address, s1)).toBe(false) // claimed by someone else
    const bobOnD1 = await sign({ hash: d1, privateKey: bob.key, to: 'hex' })
    expect(await v.verify(d1, ann.address, bobOnD1)).toBe(false) // cached path, wrong key
  })

  it('refuses the high-s twin of a valid signature and malformed bytes', async () => {
    const ann = operator('ann')
    const v = new SignatureVerifier()
    const d = entryDigest(TEAM, unsignedEntry(1n, ZERO_HASH, 'roster', {}))
    const good = await sign({ hash: d, privateKey: ann.key, to: 'hex' })
    expect(await v.verify(d, ann.address, good)).toBe(true)
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
    const s = BigInt(`0x${good.slice(66, 130)}`)
    const v27 = good.slice(130) === '1b' ? '1c' : '1b'
    const twin = `${good.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${v27}` as Hex
    expect(await v.verify(d, ann.address, twin)).toBe(false)
    expect(await v.verify(d, ann.address, '0x1234')).toBe(false)
    expect(await v.verify(d, ann.address, `${good.slice(0, 130)}05` as Hex)).toBe(false)
  })
})
