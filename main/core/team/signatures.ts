/**
 * Verifying author signatures fast enough to check a 10,000-entry chain from genesis on every
 * start. The first signature seen from an address is checked the standard way (viem recovers the
 * public key and it must hash to that address); the key is then kept with precomputed tables, and
 * later signatures by the same author are checked as plain ECDSA against it (u1·G + u2·Q), several
 * times faster than recovering each one. Both ways accept exactly the signatures by that key over
 * that digest; high-s (malleable) forms are refused, as viem never makes them.
 */
import { secp256k1 } from '@noble/curves/secp256k1'
import { publicKeyToAddress } from 'viem/accounts'
import { recoverPublicKey, type Address, type Hex } from 'viem'

type Point = InstanceType<typeof secp256k1.ProjectivePoint>
const N = secp256k1.CURVE.n
const HALF_N = N >> 1n

function invN(a: bigint): bigint {
  // Extended Euclid; a is in [1, N) here, N prime.
  let [x, y, u, v] = [a, N, 1n, 0n]
  while (x !== 0n) {
    const q = y / x
    ;[x, y, u, v] = [y - q * x, x, v - q * u, u]
  }
  return ((v % N) + N) % N
}

export class SignatureVerifier {
  private readonly keys = new Map<string, Point>()

  /** True when `signature` is `signer`'s over `digest`. Never throws on malformed input. */
  async verify(digest: Hex, signer: Address, signature: Hex): Promise<boolean> {
    if (!/^0x[0-9a-fA-F]{130}$/.test(signature) || !/^0x[0-9a-fA-F]{64}$/.test(digest)) return false
    const r = BigInt(`0x${signature.slice(2, 66)}`)
    const s = BigInt(`0x${signature.slice(66, 130)}`)
    const v = parseInt(signature.slice(130, 132), 16)
    if (r <= 0n || r >= N || s <= 0n || s > HALF_N || (v !== 27 && v !== 28)) return false
    const who = signer.toLowerCase()
    const key = this.keys.get(who)
    if (key) return this.verifyWith(key, digest, r, s)
    let pub: Hex
    try {
      pub = await recoverPublicKey({ hash: digest, signature })
    } catch {
      return false
    }
    if (publicKeyToAddress(pub).toLowerCase() !== who) return false
    const point = secp256k1.ProjectivePoint.fromHex(pub.slice(2))
    point._setWindowSize(8)
    this.keys.set(who, point)
    return true
  }

  private verifyWith(key: Point, digest: Hex, r: bigint, s: bigint): boolean {
    const h = BigInt(digest) % N
    const si = invN(s)
    // multiply(), not multiplyUnsafe(): with precomputed tables the latter is wrong for some
    // scalars in @noble/curves 1.9.1 (its early exit drops a carry); entry.test.ts would catch it.
    const R = secp256k1.ProjectivePoint.BASE.multiply((h * si) % N).add(key.multiply((r * si) % N))
    return !R.equals(secp256k1.ProjectivePoint.ZERO) && R.toAffine().x % N === r
  }
}
