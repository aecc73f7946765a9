import { randomBytes } from 'node:crypto'
import { bytesToHex, getAddress, isAddress, type Address } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { vaultError } from './errors'

/** Order of the secp256k1 group: a private key is a scalar in [1, n-1]. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

const HEX = /^[0-9a-fA-F]*$/

/** Strict hex (optional 0x, even length) to bytes; anything else is an `InvalidHex` error. */
export function parseHex(text: string, what: string): Uint8Array {
  const body = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text
  if (!HEX.test(body) || body.length % 2 !== 0) {
    throw vaultError('InvalidHex', `${what} is not valid hex (expected an even number of 0-9a-f digits)`)
  }
  return Uint8Array.from(Buffer.from(body, 'hex'))
}

function bytesToBigInt(bytes: Uint8Array): bigint {
  let v = 0n
  for (const b of bytes) v = (v << 8n) | BigInt(b)
  return v
}

/**
 * Validates a raw private key and returns it as exactly 32 bytes. Shorter keys are left-padded
 * with zeros (geth's keystore test vectors contain 30- and 31-byte keys).
 */
export function normalizePrivateKey(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 0 || bytes.length > 32) {
    throw vaultError('InvalidPrivateKey', `a private key is at most 32 bytes; got ${bytes.length}`)
  }
  const k = bytesToBigInt(bytes)
  if (k === 0n || k >= SECP256K1_N) {
    throw vaultError('InvalidPrivateKey', 'the private key is outside the secp256k1 range [1, n-1]')
  }
  const out = new Uint8Array(32)
  out.set(bytes, 32 - bytes.length)
  return out
}

/** Parses a private key typed or read from a file: hex with or without 0x, surrounding whitespace ignored. */
export function parsePrivateKeyText(text: string): Uint8Array {
  const trimmed = text.trim()
  const bytes = parseHex(trimmed, 'the private key')
  if (bytes.length !== 32) {
    bytes.fill(0)
    throw vaultError('InvalidPrivateKey', `a raw private key must be 32 bytes (64 hex digits); got ${bytes.length} bytes`)
  }
  return normalizePrivateKey(bytes)
}

/** A fresh key from the OS CSPRNG, redrawn in the (astronomically unlikely) case it is out of range. */
export function generatePrivateKey(): Uint8Array {
  for (;;) {
    const candidate = Uint8Array.from(randomBytes(32))
    const k = bytesToBigInt(candidate)
    if (k !== 0n && k < SECP256K1_N) return candidate
    candidate.fill(0)
  }
}

/** The checksummed address of a 32-byte key. */
export function addressOfKey(key: Uint8Array): Address {
  return privateKeyToAddress(bytesToHex(key))
}

/** Validates and checksums an address typed by the operator or read from a file. */
export function parseAddress(text: string): Address {
  const t = text.trim()
  if (!isAddress(t, { strict: false })) throw vaultError('InvalidAddress', `"${t.slice(0, 60)}" is not a 20-byte hex address`)
  return getAddress(t)
}
