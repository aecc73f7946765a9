import { secp256k1 } from '@noble/curves/secp256k1'
import { randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyChain, type StoredRow } from './chain'
import { KeyTable, verifyBatch, type BatchItem } from './verify-ecdsa'
import { nativeBindingPath, nativeRecoveryAvailable, useNativeRecovery } from './verify-native'
import { recoverOnWorker, setVerifyThreads, verifyBatchSplit, workerStats } from './verify-worker'
import { asMember, ChainBuilder, operator } from './testing/team-fixture'

const N = secp256k1.CURVE.n

afterAll(() => {
  setVerifyThreads(1)
  useNativeRecovery(true)
})

function signed(key: Hex, table: KeyTable, digest: bigint): BatchItem {
  const s = secp256k1.sign(digest.toString(16).padStart(64, '0'), key.slice(2))
  return { key: table, digest, r: s.r, s: s.s, recovery: s.recovery as 0 | 1 }
}

describe('signature batches on a worker thread (verify-worker.ts)', () => {
  it('gives the in-process verdicts, valid and corrupted, for two keys', async () => {
    const keys = [generatePrivateKey(), generatePrivateKey()]
    const tables = keys.map((k) => {
      const p = secp256k1.ProjectivePoint.fromHex(secp256k1.getPublicKey(k.slice(2), false)).toAffine()
      return new KeyTable(p.x, p.y)
    })
    const items: BatchItem[] = []
    for (let i = 0; i < 40; i++) {
      const it = signed(keys[i % 2]!, tables[i % 2]!, BigInt(`0x${randomBytes(32).toString('hex')}`))
      // every third one corrupted: another digest, the other key, the other parity, or s+1
      const corrupt = [
        (x: BatchItem) => ({ ...x, digest: x.digest ^ 1n }),
        (x: BatchItem) => ({ ...x, key: tables[(i + 1) % 2]! }),
        (x: BatchItem) => ({ ...x, recovery: (1 - x.recovery) as 0 | 1 }),
        (x: BatchItem) => ({ ...x, s: (x.s + 1n) % N }),
      ][i % 4]!
      items.push(i % 3 === 0 ? corrupt(it) : it)
    }
    setVerifyThreads(1, 8)
    const before = workerStats.remote
    const { local, rest } = verifyBatchSplit(items)
    const all = [...local, ...(await rest)]
    expect(workerStats.remote - before).toBe(items.length - local.length)
    expect(local.length).toBeLessThan(items.length)
    expect(all).toEqual(verifyBatch(items))
    expect(all.filter((ok) => !ok).length).toBe(14) // the corrupted ones, and only they
  })

  it("verifies a chain with the workers exactly as in process, and stops at a bad signature in the workers' part", async () => {
    const ann = operator('ann')
    const bob = operator('bob')
    const b = await ChainBuilder.genesis(ann, [asMember(ann, ['admin']), asMember(bob, ['admin'])])
    for (let i = 0; i < 40; i++) await b.policy([{ id: `r${i}`, then: { effect: 'allow' } }], [i % 2 ? ann : bob])
    const rows = b.rows()
    const at = 37 // late in the batch: the worker's share
    const sigOf = (row: StoredRow): Hex => JSON.parse(row.signatures)[0].signature
    const signerOf = (row: StoredRow): string => JSON.parse(row.signatures)[0].signer
    const tampered = rows.map((r, i) =>
      i === at ? { ...r, signatures: `[{"signature":"${sigOf(rows[at - 2]!)}","signer":"${signerOf(r)}"}]` } : r,
    )

    // The workers serve the JavaScript path (where libsecp256k1's binding is not there).
    useNativeRecovery(false)
    setVerifyThreads(0)
    const inProcess = [await verifyChain(rows), await verifyChain(tampered)]
    setVerifyThreads(1, 8)
    const before = workerStats.remote
    const onWorker = [await verifyChain(rows), await verifyChain(tampered)]
    expect(workerStats.remote - before).toBeGreaterThan(20)

    expect(onWorker[0]!.ok).toBe(true)
    expect(onWorker[0]!.verified).toBe(41)
    expect(onWorker[0]!.state.head).toEqual(inProcess[0]!.state.head)
    expect(onWorker[1]!.broken).toEqual({ seq: BigInt(at), reason: `signature of ${signerOf(rows[at]!)} does not verify` })
    expect(onWorker[1]!.broken).toEqual(inProcess[1]!.broken)
    expect(onWorker[1]!.verified).toBe(at)
    expect(onWorker[1]!.state.head?.seq).toBe(BigInt(at - 1))
  })
})

// Where libsecp256k1's binding loads (linux-x64 here), the later part of a batch is recovered on a worker.
describe.runIf(nativeRecoveryAvailable())('native recovery on a worker thread', () => {
  it('returns the keys this thread recovers, and zeros where nothing recovers', async () => {
    useNativeRecovery(true)
    setVerifyThreads(1, 8)
    const key = generatePrivateKey()
    const pub = secp256k1.getPublicKey(key.slice(2), false)
    const digest = randomBytes(32)
    const s = secp256k1.sign(digest, key.slice(2))
    const sig = Buffer.concat([Buffer.from(s.toCompactRawBytes()), Buffer.alloc(64)]) // the second: r = s = 0
    const out = await recoverOnWorker(nativeBindingPath()!, Buffer.concat([digest, digest]), sig, Uint8Array.from([s.recovery, 0]))
    expect(out && Buffer.from(out.subarray(0, 65)).equals(Buffer.from(pub))).toBe(true)
    expect(out && out.subarray(65).every((b) => b === 0)).toBe(true)
  })

  it("verifies a chain as this thread alone does, and stops at a bad signature in the worker's part", async () => {
    useNativeRecovery(true)
    const ann = operator('ann')
    const bob = operator('bob')
    const b = await ChainBuilder.genesis(ann, [asMember(ann, ['admin']), asMember(bob, ['admin'])])
    for (let i = 0; i < 40; i++) await b.policy([{ id: `r${i}`, then: { effect: 'allow' } }], [i % 2 ? ann : bob])
    const rows = b.rows()
    const at = 37
    const sigOf = (row: StoredRow): Hex => JSON.parse(row.signatures)[0].signature
    const signerOf = (row: StoredRow): string => JSON.parse(row.signatures)[0].signer
    const s = BigInt(`0x${sigOf(rows[at]!).slice(66, 130)}`)
    const flipV = sigOf(rows[at]!).slice(130) === '1b' ? '1c' : '1b'
    const bad: Hex[] = [
      sigOf(rows[at - 2]!), // the same signer's signature of another entry
      `${sigOf(rows[at]!).slice(0, 130)}${flipV}` as Hex, // v flipped: recovers another key
      `${sigOf(rows[at]!).slice(0, 66)}${(N - s).toString(16).padStart(64, '0')}${flipV}` as Hex, // high-s twin
    ]
    setVerifyThreads(0)
    const alone = await verifyChain(rows)
    setVerifyThreads(1, 8)
    const before = workerStats.remote
    const withWorker = await verifyChain(rows)
    expect(workerStats.remote - before).toBeGreaterThan(20)
    expect(withWorker.ok).toBe(true)
    expect(withWorker.verified).toBe(41)
    expect(withWorker.state.head).toEqual(alone.state.head)
    for (const signature of bad) {
      const tampered = rows.map((r, i) => (i === at ? { ...r, signatures: `[{"signature":"${signature}","signer":"${signerOf(r)}"}]` } : r))
      const r = await verifyChain(tampered)
      expect(r.broken, signature).toEqual({ seq: BigInt(at), reason: `signature of ${signerOf(rows[at]!)} does not verify` })
      expect(r.verified).toBe(at)
    }
  })
})
