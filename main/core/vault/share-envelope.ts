/**
 * A custody share sealed to one member's team identity key: ECIES on secp256k1 from audited
 * libraries only. A fresh ephemeral key per envelope; ECDH with the holder's public key
 * (@noble/curves); HKDF-SHA256 (@noble/hashes) over the shared point, salted with the ephemeral
 * public key, gives a one-time key; XChaCha20-Poly1305 (@noble/ciphers) seals the share with
 * associated data naming what it is for (team, account, version, holder), so an envelope moved to
 * another account, version or holder does not open. Nothing here is hand-written cryptography.
 */
import { xchacha20poly1305 } from '@noble/ciphers/chacha'
import { secp256k1 } from '@noble/curves/secp256k1'
import { hkdf } from '@noble/hashes/hkdf'
import { sha256 } from '@noble/hashes/sha256'
import { randomBytes } from '@noble/hashes/utils'
import { bytesToHex, hexToBytes } from 'viem'
import { vaultError } from './errors'

export interface ShareEnvelope {
  v: 1
  /** the ephemeral public key, compressed (33 bytes, hex) */
  epk: string
  /** 24-byte nonce (hex) */
  nonce: string
  /** ciphertext with its 16-byte tag (hex) */
  ct: string
}

const INFO = new TextEncoder().encode('treasury-desk/custody-share/v1')
const HEX = /^0x[0-9a-f]*$/

function keyFor(shared: Uint8Array, epk: Uint8Array): Uint8Array {
  // The x coordinate of the shared point (the compressed form's first byte is only its parity).
  return hkdf(sha256, shared.subarray(1), epk, INFO, 32)
}

/** Seals `plain` to the holder's public key (compressed or not), bound to `aad`. */
export function sealShare(holderPublicKey: Uint8Array, plain: Uint8Array, aad: Uint8Array): ShareEnvelope {
  const eph = secp256k1.utils.randomPrivateKey()
  const epk = secp256k1.getPublicKey(eph, true)
  const shared = secp256k1.getSharedSecret(eph, holderPublicKey, true)
  const key = keyFor(shared, epk)
  const nonce = randomBytes(24)
  try {
    const ct = xchacha20poly1305(key, nonce, aad).encrypt(plain)
    return { v: 1, epk: bytesToHex(epk), nonce: bytesToHex(nonce), ct: bytesToHex(ct) }
  } finally {
    eph.fill(0)
    shared.fill(0)
    key.fill(0)
  }
}

/** The envelope as stored (JSON text), shape-checked; a damaged one is TeamBadInput. */
export function parseEnvelope(text: string): ShareEnvelope {
  let o: Partial<ShareEnvelope>
  try {
    o = JSON.parse(text) as Partial<ShareEnvelope>
  } catch {
    throw vaultError('InvalidShareEnvelope', 'a custody share envelope is not JSON')
  }
  const ok =
    o.v === 1 &&
    typeof o.epk === 'string' &&
    HEX.test(o.epk) &&
    o.epk.length === 68 &&
    typeof o.nonce === 'string' &&
    HEX.test(o.nonce) &&
    o.nonce.length === 50 &&
    typeof o.ct === 'string' &&
    HEX.test(o.ct) &&
    o.ct.length > 34 &&
    o.ct.length <= 1024
  if (!ok) throw vaultError('InvalidShareEnvelope', 'a custody share envelope is malformed')
  return { v: 1, epk: o.epk!, nonce: o.nonce!, ct: o.ct! }
}

/**
 * Opens an envelope with the holder's private key (the vault calls this with the identity key; the
 * key never leaves it). Null when it does not open: another key, other associated data, or edited.
 * The caller owns (and zeroes) the returned share.
 */
export function openShare(holderPrivateKey: Uint8Array, e: ShareEnvelope, aad: Uint8Array): Uint8Array | null {
  const epk = hexToBytes(e.epk as `0x${string}`)
  let shared: Uint8Array
  try {
    shared = secp256k1.getSharedSecret(holderPrivateKey, epk, true)
  } catch {
    return null // not a point on the curve
  }
  const key = keyFor(shared, epk)
  try {
    return xchacha20poly1305(key, hexToBytes(e.nonce as `0x${string}`), aad).decrypt(hexToBytes(e.ct as `0x${string}`))
  } catch {
    return null
  } finally {
    shared.fill(0)
    key.fill(0)
  }
}

/** What a share is bound to: the envelope opens only for this team, account, split version, share index and holder. */
export function shareAad(p: { teamId: string; account: string; version: number; index: number; holder: string }): Uint8Array {
  return new TextEncoder().encode(
    `custody-share|${p.teamId.toLowerCase()}|${p.account.toLowerCase()}|v${p.version}|#${p.index}|${p.holder.toLowerCase()}`,
  )
}
