import { secp256k1 } from '@noble/curves/secp256k1'
import { randomBytes } from 'node:crypto'
import { recoverAddress, recoverTypedDataAddress, type Address, type Hex, type TypedDataDefinition } from 'viem'
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyChain, type StoredRow } from './chain'
import { entryDigest, entryTypedData, signEntry, unsignedEntry, ZERO_HASH } from './entry'
import { SignatureVerifier } from './signatures'
import { KeyTable, verifyBatch, verifyWithTable, type BatchItem } from './verify-ecdsa'
import { nativeRecoveryAvailable, useNativeRecovery } from './verify-native'
import { asMember, ChainBuilder, operator } from './testing/team-fixture'

const N = secp256k1.CURVE.n
const TEAM: Hex = `0x${'ab'.repeat(32)}`
const hex32 = (n: bigint): string => n.toString(16).padStart(64, '0')
const randomDigest = (): Hex => `0x${randomBytes(32).toString('hex')}`

/** The reference decision: viem recovers the claimed signer, with the stored format's rules (v 27/28, low s). */
async function reference(digest: Hex, signer: Address, signature: Hex): Promise<boolean> {
  if (!/^0x[0-9a-f]{130}$/i.test(signature)) return false
  const v = parseInt(signature.slice(130), 16)
  if (v !== 27 && v !== 28) return false
  if (BigInt(`0x${signature.slice(66, 130)}`) > N >> 1n) return false // noble's verify refuses high s too
  try {
    return (await recoverAddress({ hash: digest, signature })).toLowerCase() === signer.toLowerCase()
  } catch {
    return false
  }
}

interface Author {
  key: Hex
  address: Address
  table: KeyTable
}

function author(): Author {
  const key = generatePrivateKey()
  const pub = secp256k1.ProjectivePoint.fromHex(secp256k1.getPublicKey(key.slice(2), false)).toAffine()
  return { key, address: privateKeyToAccount(key).address, table: new KeyTable(pub.x, pub.y) }
}

/** The table check alone, on a signature in the stored form (range, low-s and v checked as signatures.ts does). */
function tableCheck(a: Author, digest: Hex, signature: Hex): boolean {
  if (!/^0x[0-9a-f]{130}$/i.test(signature)) return false
  const r = BigInt(`0x${signature.slice(2, 66)}`)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = parseInt(signature.slice(130), 16)
  if (r <= 0n || r >= N || s <= 0n || s > N >> 1n || (v !== 27 && v !== 28)) return false
  return verifyWithTable(a.table, BigInt(digest), r, s, v === 27 ? 0 : 1)
}

/** The same case as a batch item, or null when the range, low-s or v checks refuse it before any math. */
function batchItem(a: Author, digest: Hex, signature: Hex): BatchItem | null {
  if (!/^0x[0-9a-f]{130}$/i.test(signature)) return null
  const r = BigInt(`0x${signature.slice(2, 66)}`)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = parseInt(signature.slice(130), 16)
  if (r <= 0n || r >= N || s <= 0n || s > N >> 1n || (v !== 27 && v !== 28)) return null
  return { key: a.table, digest: BigInt(digest), r, s, recovery: v === 27 ? 0 : 1 }
}

/** Invalid variants of a valid signature: each must be refused by both the reference and the fast path. */
function mutations(digest: Hex, signature: Hex): { what: string; digest: Hex; signature: Hex }[] {
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = signature.slice(130)
  const flipV = v === '1b' ? '1c' : '1b'
  const at = 2 + 2 * Math.floor(Math.random() * 65)
  const xor = 1 + Math.floor(Math.random() * 255)
  const flipped =
    `${signature.slice(0, at)}${(parseInt(signature.slice(at, at + 2), 16) ^ xor).toString(16).padStart(2, '0')}${signature.slice(at + 2)}` as Hex
  return [
    { what: 'v flipped', digest, signature: `${signature.slice(0, 130)}${flipV}` as Hex },
    // the malleable twin recovers the same key (s -> n - s, v flipped): refused only by the low-s rule
    { what: 'high-s twin', digest, signature: `${signature.slice(0, 66)}${hex32(N - s)}${flipV}` as Hex },
    { what: `byte ${(at - 2) / 2} xor ${xor}`, digest, signature: flipped },
    { what: 'other digest', digest: randomDigest(), signature },
    { what: 'r + 1', digest, signature: `0x${hex32(BigInt(`0x${signature.slice(2, 66)}`) + 1n)}${signature.slice(66)}` as Hex },
  ]
}

describe('table-based ECDSA check (verify-ecdsa.ts)', () => {
  it('accepts exactly what viem recovery accepts, on random keys, digests and corruptions', async () => {
    const authors = [author(), author()]
    const [ann, bob] = authors as [Author, Author]
    // edge digests: zero, n (reduces to zero), all ones (above n), plus random ones
    const digests: Hex[] = [`0x${hex32(0n)}`, `0x${hex32(N)}`, `0x${'ff'.repeat(32)}`, ...Array.from({ length: 12 }, randomDigest)]
    const batch: { item: BatchItem; want: boolean; what: string }[] = []
    const queue = (a: Author, digest: Hex, signature: Hex, want: boolean, what: string) => {
      const item = batchItem(a, digest, signature)
      if (item) batch.push({ item, want, what: `${what}: ${digest} ${signature}` })
      else expect(want, what).toBe(false)
    }
    for (const digest of digests) {
      for (const a of authors) {
        const signature = await sign({ hash: digest, privateKey: a.key, to: 'hex' })
        queue(a, digest, signature, true, 'valid')
        queue(a === ann ? bob : ann, digest, signature, false, 'wrong key')
        const other = a === ann ? bob : ann
        expect(await reference(digest, a.address, signature), `valid ${digest}`).toBe(true)
        expect(tableCheck(a, digest, signature), `valid ${digest} ${signature}`).toBe(true)
        expect(await reference(digest, other.address, signature)).toBe(false)
        expect(tableCheck(other, digest, signature), `wrong key ${digest} ${signature}`).toBe(false)
        for (const m of mutations(digest, signature)) {
          const want = await reference(m.digest, a.address, m.signature)
          expect(want, `${m.what}: reference`).toBe(false)
          expect(tableCheck(a, m.digest, m.signature), `${m.what}: ${m.digest} ${m.signature}`).toBe(want)
          queue(a, m.digest, m.signature, want, m.what)
        }
      }
    }
    // the batched check, all cases shuffled into one batch, decides each the same way
    batch.sort(() => Math.random() - 0.5)
    const got = verifyBatch(batch.map((b) => b.item))
    batch.forEach((b, i) => expect(got[i], `batch ${b.what}`).toBe(b.want))
  })

  it('agrees with noble on scalars whose digits carry into the last window', () => {
    // s close to n/2 and r close to n make u1, u2 spread over all 256 bits; a digit of 128 stays positive
    const a = author()
    for (let i = 0; i < 8; i++) {
      const digest = randomDigest()
      const sig = secp256k1.sign(digest.slice(2), a.key.slice(2))
      const pub = secp256k1.getPublicKey(a.key.slice(2))
      expect(secp256k1.verify(sig.toCompactRawBytes(), Buffer.from(digest.slice(2), 'hex'), pub)).toBe(true)
      expect(verifyWithTable(a.table, BigInt(digest), sig.r, sig.s, sig.recovery as 0 | 1)).toBe(true)
      expect(verifyWithTable(a.table, BigInt(digest), sig.r, sig.s, (1 - sig.recovery) as 0 | 1)).toBe(false)
    }
    // a digest made of 0x80 bytes: every digit of u1 sits on the signed-digit boundary for some s
    const sig = secp256k1.sign('80'.repeat(32), a.key.slice(2))
    expect(verifyWithTable(a.table, BigInt(`0x${'80'.repeat(32)}`), sig.r, sig.s, sig.recovery as 0 | 1)).toBe(true)
  })
})

describe('native recovery (verify-native.ts)', () => {
  it('loads the prebuilt libsecp256k1 binding on the platforms the package ships one for', () => {
    const shipped = ['linux-x64', 'darwin-arm64', 'win32-x64'].includes(`${process.platform}-${process.arch}`)
    expect(nativeRecoveryAvailable()).toBe(shipped)
    useNativeRecovery(false)
    expect(nativeRecoveryAvailable()).toBe(false)
    useNativeRecovery(true)
  })
})

afterAll(() => useNativeRecovery(true))

// Both ways of deciding: libsecp256k1's recovery where it loads, the JavaScript tables elsewhere.
describe.each([
  ['native recovery', true],
  ['JavaScript tables', false],
])('SignatureVerifier (%s)', (_, native) => {
  it('agrees with recoverTypedDataAddress on entries before and after the key gets its tables', async () => {
    useNativeRecovery(native)
    const ann = operator('ann')
    const bob = operator('bob')
    const v = new SignatureVerifier()
    // 20 entries: the first few go through recovery, the rest through the tables
    for (let seq = 1n; seq <= 20n; seq++) {
      const e = unsignedEntry(seq, ZERO_HASH, 'policy', { version: Number(seq), rules: [] })
      const digest = entryDigest(TEAM, e)
      const { signature } = await signEntry(ann, TEAM, e)
      const recovered = await recoverTypedDataAddress({ ...(entryTypedData(TEAM, e) as TypedDataDefinition), signature })
      expect(recovered).toBe(ann.address)
      expect(await v.verify(digest, ann.address, signature), `entry ${seq}`).toBe(true)
      expect(await v.verify(digest, bob.address, signature)).toBe(false)
      for (const m of mutations(digest, signature)) {
        expect(await v.verify(m.digest, ann.address, m.signature), `entry ${seq}: ${m.what}`).toBe(
          await reference(m.digest, ann.address, m.signature),
        )
      }
      // bob's signature claimed as ann's, on the table path too
      const forged = await sign({ hash: digest, privateKey: bob.key, to: 'hex' })
      expect(await v.verify(digest, ann.address, forged)).toBe(false)
    }
  })
})

describe.each([
  ['native recovery', true],
  ['JavaScript batch', false],
])('chain verification (%s)', (_, native) => {
  it('verifies a chain whose later entries go through the batch, and stops at a bad signature there', async () => {
    useNativeRecovery(native)
    const ann = operator('ann')
    const bob = operator('bob')
    const b = await ChainBuilder.genesis(ann, [asMember(ann, ['admin']), asMember(bob, ['trader'])])
    for (let i = 0; i < 14; i++) await b.policy([{ id: `r${i}`, then: { effect: 'allow' } }], [ann])
    const rows = b.rows()
    const good = await verifyChain(rows)
    expect(good.ok).toBe(true)
    expect(good.verified).toBe(15)

    const sig = (row: StoredRow): Hex => JSON.parse(row.signatures)[0].signature
    const withSignature = (row: StoredRow, signature: Hex): StoredRow => ({
      ...row,
      signatures: `[{"signature":"${signature}","signer":"${ann.address.toLowerCase()}"}]`,
    })
    const s12 = sig(rows[12]!)
    const s = BigInt(`0x${s12.slice(66, 130)}`)
    const flipV = s12.slice(130) === '1b' ? '1c' : '1b'
    const bad: Hex[] = [
      `${s12.slice(0, 130)}${flipV}` as Hex, // v flipped
      `${s12.slice(0, 66)}${hex32(N - s)}${flipV}` as Hex, // high-s twin (same key recovers)
      await sign({ hash: rows[12]!.digest as Hex, privateKey: bob.key, to: 'hex' }), // bob signing as ann
      sig(rows[11]!), // ann's signature of another entry
    ]
    for (const signature of bad) {
      const tampered = rows.map((r, i) => (i === 12 ? withSignature(r, signature) : r))
      const r = await verifyChain(tampered)
      expect(r.broken, signature).toEqual({ seq: 12n, reason: `signature of ${ann.address.toLowerCase()} does not verify` })
      expect(r.verified).toBe(12)
      expect(r.state.head?.seq).toBe(11n)
    }
  })
})
