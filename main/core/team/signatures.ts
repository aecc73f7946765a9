/**
 * Verifying author signatures fast enough to check a 10,000-entry chain from genesis on every
 * start. The first signatures seen from an address are checked the standard way (viem recovers the
 * public key and it must hash to that address); once an author has signed a few entries, their key
 * gets fixed-window tables (verify-ecdsa.ts) and later signatures are checked against it, ~3x
 * faster than recovering each one. Both ways accept exactly the signatures by that key over that
 * digest with that v (recovery reads R's y parity from v, and so does the table check); high-s
 * (malleable) forms and v other than 27/28 are refused, as viem never makes them.
 */
import { publicKeyToAddress } from 'viem/accounts'
import { recoverPublicKey, type Address, type Hex } from 'viem'
import { KeyTable, onCurve, verifyWithTable } from './verify-ecdsa'

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const HALF_N = N >> 1n
/** Recoveries (~3.5 ms each here) before a key's tables (~55 ms) pay for themselves. */
const TABLE_AFTER = 8

interface Author {
  pub: Hex
  seen: number
  table: KeyTable | null
}

export class SignatureVerifier {
  private readonly authors = new Map<string, Author>()

  /** True when `signature` is `signer`'s over `digest`. Never throws on malformed input. */
  async verify(digest: Hex, signer: Address, signature: Hex): Promise<boolean> {
    if (!/^0x[0-9a-fA-F]{130}$/.test(signature) || !/^0x[0-9a-fA-F]{64}$/.test(digest)) return false
    const r = BigInt(`0x${signature.slice(2, 66)}`)
    const s = BigInt(`0x${signature.slice(66, 130)}`)
    const v = parseInt(signature.slice(130, 132), 16)
    if (r <= 0n || r >= N || s <= 0n || s > HALF_N || (v !== 27 && v !== 28)) return false
    const who = signer.toLowerCase()
    const known = this.authors.get(who)
    if (known?.table) return verifyWithTable(known.table, BigInt(digest), r, s, v === 27 ? 0 : 1)
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
