/**
 * Verifying author signatures fast enough to check a 10,000-entry chain from genesis on every
 * start. Where libsecp256k1's native binding loads (verify-native.ts: linux-x64, darwin-arm64,
 * win32-x64), every signature is recovered by it (~80 µs) and the key compared with the author's:
 * the first signature seen from an address must recover a key that hashes to that address, later
 * ones must recover that same key (one address, one key). Elsewhere, in JavaScript: the first
 * signatures seen from an address are checked the standard way (viem recovers the public key and it
 * must hash to that address); once an author has signed a few entries, their key
 * gets fixed-window tables (verify-ecdsa.ts) and later signatures are checked against it, ~3x
 * faster than recovering each one. Both ways accept exactly the signatures by that key over that
 * digest with that v (recovery reads R's y parity from v, and so does the table check); high-s
 * (malleable) forms and v other than 27/28 are refused, as viem never makes them.
 *
 * `prefetch` runs the table check for a whole batch of rows up front (verifyBatch shares the field
 * inversions, ~1.7x cheaper per signature); its verdicts live in memory only, keyed by the exact
 * digest, signer and signature, and `verify` consumes them as the chain verifier asks for each
 * signature in order. Nothing is skipped: every signature asked for was checked by this process
 * (large batches partly on its worker threads, verify-worker.ts, running the same code).
 */
import { publicKeyToAddress } from 'viem/accounts'
import { recoverPublicKey, type Address, type Hex } from 'viem'
import { KeyTable, onCurve, verifyWithTable, type BatchItem } from './verify-ecdsa'
import { nativeBindingPath, nativeRecover, nativeRecoveryAvailable } from './verify-native'
import { parallelMinimum, recoverOnWorker, verifyBatchSplit, warmUp } from './verify-worker'

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const HALF_N = N >> 1n
/** Recoveries (~3.5 ms each here) before a key's tables (~55 ms) pay for themselves. */
const TABLE_AFTER = 8

interface Author {
  pub: Hex
  seen: number
  table: KeyTable | null
  /** the key's 65 uncompressed bytes, for the native path's comparison */
  bytes?: Uint8Array
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** r, s, v of a signature in the stored form, or null when its format or ranges are wrong. */
function parse(digest: string, signature: string): { r: bigint; s: bigint; recovery: 0 | 1 } | null {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature) || !/^0x[0-9a-fA-F]{64}$/.test(digest)) return null
  const r = BigInt(`0x${signature.slice(2, 66)}`)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = parseInt(signature.slice(130, 132), 16)
  if (r <= 0n || r >= N || s <= 0n || s > HALF_N || (v !== 27 && v !== 28)) return null
  return { r, s, recovery: v === 27 ? 0 : 1 }
}

const verdictKey = (digest: string, who: string, signature: string) => `${digest}|${who}|${signature}`

export class SignatureVerifier {
  private readonly authors = new Map<string, Author>()
  private verdicts = new Map<string, boolean>()
  /** the workers' part of the last prefetch, until it is in `verdicts` */
  private pending: Promise<void> | null = null
  /** native path: keys a worker thread recovered (null: nothing recovers), by verdict key */
  private recovered = new Map<string, Uint8Array | null>()
  /** native path: the verdict keys sent to the worker, and its answer until it is in `recovered` */
  private remote = new Set<string>()
  private recovering: Promise<void> | null = null

  /**
   * Checks every signature the rows carry (their stored digest and signature list, as read), so
   * that `verify` finds the answers ready. Malformed lists are left for the caller to refuse.
   */
  async prefetch(rows: readonly { digest: string; signatures: string }[]): Promise<void> {
    this.forget()
    if (nativeRecoveryAvailable()) return this.prefetchNative(rows)
    warmUp(rows.length)
    const batch: BatchItem[] = []
    const keys: string[] = []
    let recoveryFailed = false
    for (const { digest, signer: who, signature } of rowSignatures(rows)) {
      const key = verdictKey(digest, who, signature)
      if (this.verdicts.has(key)) continue
      const table = this.authors.get(who)?.table
      if (!table) {
        // An author not known yet: the standard way (recovery), which also builds their tables.
        // After one failure, recoveries are left to the loop, which stops at the first broken
        // link, so a tampered log cannot make this pass recover thousands of forged signatures.
        if (recoveryFailed) continue
        const ok = await this.verify(digest as Hex, who as Address, signature as Hex)
        this.verdicts.set(key, ok)
        recoveryFailed = !ok
        continue
      }
      const p = parse(digest, signature)
      if (!p) {
        this.verdicts.set(key, false)
        continue
      }
      batch.push({ key: table, digest: BigInt(digest), ...p })
      keys.push(key)
    }
    // Part here, the later part on worker threads (verify-worker.ts); `verify` waits for those
    // verdicts only when it asks for one that is not in yet. They go into this prefetch's map, so
    // a batch still running when `forget` is called lands in a map nobody reads.
    const verdicts = this.verdicts
    const { local, rest } = verifyBatchSplit(batch)
    local.forEach((ok, i) => verdicts.set(keys[i]!, ok))
    this.pending = rest.then((ok) => ok.forEach((v, i) => verdicts.set(keys[local.length + i]!, v)))
  }

  /**
   * The native path: the later part of the rows' signatures is recovered on a worker thread while
   * this thread recovers the first part itself (as `verify` asks for them) and runs the chain's
   * rules; `verify` then compares the worker's keys exactly as it compares its own.
   */
  private prefetchNative(rows: readonly { digest: string; signatures: string }[]): void {
    const path = nativeBindingPath()
    if (!path || rows.length === 0) return
    const asked: { key: string; digest: string; signature: string; recovery: 0 | 1 }[] = []
    for (const { digest, signer, signature } of rowSignatures(rows)) {
      const p = parse(digest, signature)
      if (p) asked.push({ key: verdictKey(digest, signer, signature), digest, signature, recovery: p.recovery })
    }
    if (asked.length < parallelMinimum()) return
    // This thread also runs every rule of every entry: it takes about a third of the recoveries.
    const tail = asked.slice(Math.floor(asked.length * 0.35))
    const msg = Buffer.alloc(32 * tail.length)
    const sig = Buffer.alloc(64 * tail.length)
    const rec = new Uint8Array(tail.length)
    tail.forEach((a, i) => {
      msg.write(a.digest.slice(2), 32 * i, 'hex')
      sig.write(a.signature.slice(2, 130), 64 * i, 'hex')
      rec[i] = a.recovery
      this.remote.add(a.key)
    })
    const recovered = this.recovered
    this.recovering = recoverOnWorker(path, msg, sig, rec).then((out) => {
      // null: the worker is not there or failed; `verify` recovers those itself.
      if (out) tail.forEach((a, i) => recovered.set(a.key, out[65 * i] === 4 ? out.subarray(65 * i, 65 * i + 65) : null))
    })
  }

  /** Drops the verdicts `prefetch` left unused (rows after a broken link). */
  forget(): void {
    this.verdicts = new Map()
    this.pending = null
    this.recovered = new Map()
    this.remote = new Set()
    this.recovering = null
  }

  /** True when `signature` is `signer`'s over `digest`. Never throws on malformed input. */
  async verify(digest: Hex, signer: Address, signature: Hex): Promise<boolean> {
    const p = parse(digest, signature)
    if (!p) return false
    const who = signer.toLowerCase()
    const key = verdictKey(digest, who, signature)
    if (this.pending && !this.verdicts.has(key)) {
      await this.pending
      this.pending = null
    }
    const ready = this.verdicts.get(key)
    if (ready !== undefined) {
      this.verdicts.delete(key)
      return ready
    }
    const { r, s, recovery } = p
    const known = this.authors.get(who)
    if (this.recovering && this.remote.has(key)) {
      await this.recovering
      this.recovering = null
    }
    const fromWorker = this.recovered.get(key)
    if (fromWorker !== undefined) this.recovered.delete(key)
    const native =
      fromWorker !== undefined
        ? fromWorker
        : nativeRecover(Buffer.from(digest.slice(2), 'hex'), Buffer.from(signature.slice(2, 130), 'hex'), recovery)
    if (native !== undefined) {
      if (native === null) return false
      if (known) return sameBytes(native, (known.bytes ??= Buffer.from(known.pub.slice(2), 'hex')))
      const hex = `0x${Buffer.from(native).toString('hex')}` as Hex
      if (publicKeyToAddress(hex).toLowerCase() !== who) return false
      this.authors.set(who, { pub: hex, seen: 1, table: null, bytes: Uint8Array.from(native) })
      return true
    }
    if (known?.table) return verifyWithTable(known.table, BigInt(digest), r, s, recovery)
    let pub: Hex
    try {
      pub = await recoverPublicKey({ hash: digest, signature })
    } catch {
      return false
    }
    if (publicKeyToAddress(pub).toLowerCase() !== who) return false
    const author = known ?? { pub, seen: 0, table: null }
    this.authors.set(who, author)
    if (++author.seen >= TABLE_AFTER) {
      const x = BigInt(`0x${pub.slice(4, 68)}`)
      const y = BigInt(`0x${pub.slice(68, 132)}`)
      if (onCurve(x, y)) author.table = new KeyTable(x, y)
    }
    return true
  }
}

/** Each well-formed (signer, signature) of each row, signer lower-cased; malformed lists and entries are skipped (the chain's rules refuse them). */
function* rowSignatures(
  rows: readonly { digest: string; signatures: string }[],
): Generator<{ digest: string; signer: string; signature: string }> {
  for (const row of rows) {
    let list: unknown
    try {
      list = JSON.parse(row.signatures)
    } catch {
      continue
    }
    if (!Array.isArray(list)) continue
    for (const e of list as unknown[]) {
      if (typeof e !== 'object' || e === null) continue
      const { signer, signature } = e as { signer?: unknown; signature?: unknown }
      if (typeof signer === 'string' && typeof signature === 'string') yield { digest: row.digest, signer: signer.toLowerCase(), signature }
    }
  }
}
