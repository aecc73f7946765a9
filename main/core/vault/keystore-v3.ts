/**
 * Web3 Secret Storage v3 keystores, as written by geth, ethers and Foundry: import (scrypt or
 * pbkdf2-hmac-sha256, aes-128-ctr) and export (scrypt by default).
 * MAC = keccak256(derivedKey[16..32] || ciphertext); the cipher key is derivedKey[0..16].
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import * as v from 'valibot'
import { hexToBytes, keccak256, type Address } from 'viem'
import { vaultError } from './errors'
import { DEFAULT_SCRYPT, pbkdf2Sha256Async, scryptAsync, type ScryptParams } from './kdf'
import { addressOfKey, normalizePrivateKey, parseHex } from './private-key'

export interface KeystoreV3 {
  version: 3
  id: string
  /** Lowercase hex without 0x, as geth and ethers write it. */
  address: string
  crypto: {
    cipher: 'aes-128-ctr'
    cipherparams: { iv: string }
    ciphertext: string
    kdf: 'scrypt' | 'pbkdf2'
    kdfparams: ScryptKdfParams | Pbkdf2KdfParams
    mac: string
  }
}
export interface ScryptKdfParams {
  dklen: 32
  n: number
  r: number
  p: number
  salt: string
}
export interface Pbkdf2KdfParams {
  dklen: 32
  c: number
  prf: 'hmac-sha256'
  salt: string
}

export type KeystoreExportKdf = { kdf: 'scrypt'; scrypt?: ScryptParams } | { kdf: 'pbkdf2'; iterations?: number }

/** Largest keystore file accepted; real ones are under 1 KiB. */
export const MAX_KEYSTORE_BYTES = 64 * 1024
const PBKDF2_DEFAULT_ITERATIONS = 262_144

const Int = v.pipe(v.number(), v.integer())
const HexStr = v.pipe(v.string(), v.regex(/^(0x)?[0-9a-fA-F]*$/))
const CryptoSchema = v.object({
  cipher: v.string(),
  cipherparams: v.object({ iv: HexStr }),
  ciphertext: HexStr,
  kdf: v.string(),
  kdfparams: v.record(v.string(), v.unknown()),
  mac: HexStr,
})
const ScryptParamsSchema = v.object({ dklen: Int, n: Int, r: Int, p: Int, salt: HexStr })
const Pbkdf2ParamsSchema = v.object({ dklen: Int, c: Int, prf: v.string(), salt: HexStr })

function invalid(message: string): never {
  throw vaultError('KeystoreInvalid', `not a usable v3 keystore: ${message}`)
}

interface ParsedKeystore {
  crypto: v.InferOutput<typeof CryptoSchema>
  address: string | undefined
}

/** Parses and shape-checks a keystore (text or already-parsed JSON); no decryption yet. */
export function parseKeystore(input: string | unknown): ParsedKeystore {
  let json: unknown = input
  if (typeof input === 'string') {
    if (Buffer.byteLength(input) > MAX_KEYSTORE_BYTES) invalid('file larger than 64 KiB')
    try {
      json = JSON.parse(input)
    } catch {
      invalid('not JSON')
    }
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) invalid('not a JSON object')
  const obj = json as Record<string, unknown>
  if (obj.version !== 3) invalid(`version is ${JSON.stringify(obj.version) ?? 'missing'}, expected 3`)
  // Go's JSON decoder is case-insensitive, so some geth-era files say "Crypto".
  const cryptoRaw = obj.crypto ?? obj.Crypto
  const parsed = v.safeParse(CryptoSchema, cryptoRaw)
  if (!parsed.success)
    invalid(`crypto section: ${parsed.issues[0]?.message ?? 'malformed'} at ${v.getDotPath(parsed.issues[0]) ?? 'crypto'}`)
  let address: string | undefined
  if (obj.address !== undefined) {
    if (typeof obj.address !== 'string' || !/^(0x)?[0-9a-fA-F]{40}$/.test(obj.address)) invalid('address field is not 20 bytes of hex')
    address = obj.address.replace(/^0x/i, '').toLowerCase()
  }
  return { crypto: parsed.output, address }
}

async function deriveKey(c: ParsedKeystore['crypto'], secret: Uint8Array): Promise<Buffer> {
  if (c.kdf === 'scrypt') {
    const p = v.safeParse(ScryptParamsSchema, c.kdfparams)
    if (!p.success) invalid('scrypt kdfparams need integer dklen, n, r, p and a hex salt')
    if (p.output.dklen !== 32) invalid(`dklen ${p.output.dklen} unsupported (expected 32)`)
    return scryptAsync(secret, parseHex(p.output.salt, 'kdf salt'), { n: p.output.n, r: p.output.r, p: p.output.p }, 32)
  }
  if (c.kdf === 'pbkdf2') {
    const p = v.safeParse(Pbkdf2ParamsSchema, c.kdfparams)
    if (!p.success) invalid('pbkdf2 kdfparams need integer dklen and c, a prf and a hex salt')
    if (p.output.prf !== 'hmac-sha256')
      throw vaultError('KeystoreUnsupportedKdf', `pbkdf2 prf "${p.output.prf.slice(0, 40)}" is not supported (only hmac-sha256)`)
    if (p.output.dklen !== 32) invalid(`dklen ${p.output.dklen} unsupported (expected 32)`)
    return pbkdf2Sha256Async(secret, parseHex(p.output.salt, 'kdf salt'), p.output.c, 32)
  }
  throw vaultError('KeystoreUnsupportedKdf', `key derivation "${c.kdf.slice(0, 40)}" is not supported (scrypt or pbkdf2)`)
}

function macOf(derived: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  const buf = new Uint8Array(16 + ciphertext.length)
  buf.set(derived.subarray(16, 32), 0)
  buf.set(ciphertext, 16)
  return hexToBytes(keccak256(buf))
}

/**
 * Decrypts a v3 keystore and returns the 32-byte private key (left-padded if stored shorter)
 * and its address. A wrong passphrase is a `KeystoreMacMismatch`; nothing else is touched.
 */
export async function decryptKeystore(input: string | unknown, passphrase: string): Promise<{ key: Uint8Array; address: Address }> {
  const ks = parseKeystore(input)
  const c = ks.crypto
  if (c.cipher !== 'aes-128-ctr')
    throw vaultError('KeystoreUnsupportedCipher', `cipher "${c.cipher.slice(0, 40)}" is not supported (aes-128-ctr only)`)
  const iv = parseHex(c.cipherparams.iv, 'cipher iv')
  if (iv.length !== 16) invalid('iv must be 16 bytes')
  const ciphertext = parseHex(c.ciphertext, 'ciphertext')
  if (ciphertext.length === 0 || ciphertext.length > 32) invalid(`ciphertext is ${ciphertext.length} bytes; a key is at most 32`)
  const mac = parseHex(c.mac, 'mac')
  if (mac.length !== 32) invalid('mac must be 32 bytes')

  // geth hashes the passphrase bytes as given; ethers normalises to NFKC first. Try both.
  const candidates = [passphrase]
  if (passphrase.normalize('NFKC') !== passphrase) candidates.push(passphrase.normalize('NFKC'))
  for (const candidate of candidates) {
    const derived = await deriveKey(c, Buffer.from(candidate, 'utf8'))
    try {
      if (!timingSafeEqual(macOf(derived, ciphertext), mac)) continue
      const decipher = createDecipheriv('aes-128-ctr', derived.subarray(0, 16), iv)
      const plain = Buffer.concat([decipher.update(ciphertext), decipher.final()])
      let key: Uint8Array
      try {
        key = normalizePrivateKey(plain)
      } finally {
        plain.fill(0)
      }
      const address = addressOfKey(key)
      if (ks.address !== undefined && ks.address !== address.slice(2).toLowerCase()) {
        key.fill(0)
        throw vaultError('KeystoreAddressMismatch', `the keystore says address 0x${ks.address} but its key belongs to ${address}`)
      }
      return { key, address }
    } finally {
      derived.fill(0)
    }
  }
  throw vaultError('KeystoreMacMismatch', 'keystore MAC mismatch: wrong keystore passphrase, or the file is corrupted')
}

/** Encrypts a 32-byte key as a v3 keystore (scrypt N=2^18, r=8, p=1 unless told otherwise). */
export async function encryptKeystore(
  key: Uint8Array,
  passphrase: string,
  options: KeystoreExportKdf = { kdf: 'scrypt' },
): Promise<KeystoreV3> {
  const k = normalizePrivateKey(key)
  const salt = randomBytes(32)
  const iv = randomBytes(16)
  // ethers normalises passphrases to NFKC; for ASCII this is the identity, so geth agrees.
  const secret = Buffer.from(passphrase.normalize('NFKC'), 'utf8')
  let derived: Buffer
  let kdfparams: ScryptKdfParams | Pbkdf2KdfParams
  if (options.kdf === 'scrypt') {
    const sp = options.scrypt ?? DEFAULT_SCRYPT
    derived = await scryptAsync(secret, salt, sp, 32)
    kdfparams = { dklen: 32, n: sp.n, r: sp.r, p: sp.p, salt: salt.toString('hex') }
  } else {
    const c = options.iterations ?? PBKDF2_DEFAULT_ITERATIONS
    derived = await pbkdf2Sha256Async(secret, salt, c, 32)
    kdfparams = { dklen: 32, c, prf: 'hmac-sha256', salt: salt.toString('hex') }
  }
  try {
    const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv)
    const ciphertext = Buffer.concat([cipher.update(k), cipher.final()])
    const mac = Buffer.from(macOf(derived, ciphertext))
    return {
      version: 3,
      id: randomUUID(),
      address: addressOfKey(k).slice(2).toLowerCase(),
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: iv.toString('hex') },
        ciphertext: ciphertext.toString('hex'),
        kdf: options.kdf,
        kdfparams,
        mac: mac.toString('hex'),
      },
    }
  } finally {
    derived.fill(0)
    secret.fill(0)
    if (k !== key) k.fill(0)
  }
}
