/**
 * An owner key split into Shamir shares and put together again, with the audited
 * `shamir-secret-sharing` package (Privy's, independently audited; no hand-written field
 * arithmetic here). A combined key is only ever accepted when it is the account's: its address is
 * derived and compared before anything signs with it. Callers zero what they are handed.
 */
import { combine, split } from 'shamir-secret-sharing'
import { secp256k1 } from '@noble/curves/secp256k1'
import { publicKeyToAddress } from 'viem/accounts'
import { bytesToHex } from 'viem'
import { DeskError } from '../../errors/desk-error'

export const MIN_THRESHOLD = 2
export const MAX_SHARES = 16

/** Splits a 32-byte private key into `n` shares, any `t` of which rebuild it. */
export async function splitKey(key: Uint8Array, n: number, t: number): Promise<Uint8Array[]> {
  if (key.length !== 32) throw new DeskError('CustodyBadInput', 'an owner key is 32 bytes')
  if (!Number.isInteger(t) || !Number.isInteger(n) || t < MIN_THRESHOLD || n < t || n > MAX_SHARES)
    throw new DeskError(
      'CustodyBadInput',
      `a split needs ${MIN_THRESHOLD} ≤ threshold ≤ shares ≤ ${MAX_SHARES} (asked ${t} of ${n}): one share alone must never sign`,
    )
  return split(key, n, t)
}

/** The address of a private key (lower-case). */
export function addressOfKey(key: Uint8Array): string {
  return publicKeyToAddress(bytesToHex(secp256k1.getPublicKey(key, false))).toLowerCase()
}

/**
 * Rebuilds the key from shares and checks it is `account`'s. A wrong combination (too few shares, a
 * share of another key or version) yields another key: CustodyKeyMismatch, and it is zeroed here.
 */
export async function combineKey(shares: Uint8Array[], account: string): Promise<Uint8Array> {
  if (shares.length < MIN_THRESHOLD)
    throw new DeskError('CustodySharesMissing', `${shares.length} share(s): at least ${MIN_THRESHOLD} are needed`)
  let key: Uint8Array
  try {
    key = await combine(shares)
  } catch (e) {
    throw new DeskError('CustodyKeyMismatch', `the shares do not combine: ${(e as Error).message}`)
  }
  let address: string | null
  try {
    address = key.length === 32 ? addressOfKey(key) : null
  } catch {
    address = null // not a valid scalar
  }
  if (address !== account.toLowerCase()) {
    key.fill(0)
    throw new DeskError('CustodyKeyMismatch', `the combined shares are not ${account}'s key: nothing was signed`, { account })
  }
  return key
}
