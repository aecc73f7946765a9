/**
 * The vault's cryptography: one scrypt master key per passphrase, and per record a random salt
 * (HKDF-SHA256 turns master + salt into that record's AES-256-GCM key) and a random 96-bit nonce.
 * The record's identity (kind, owner, slot, address) is bound as GCM associated data, so a
 * record moved onto another account fails to decrypt.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'
import { scryptAsync, type ScryptParams } from './kdf'

export interface SealedRecord {
  salt: string
  nonce: string
  ciphertext: string
  tag: string
}

const RECORD_INFO = 'treasury-desk vault record v1'
const MAC_INFO = 'treasury-desk vault file mac v1'

/** The passphrase as bytes: NFKC so the same words typed on another keyboard layout still unlock. */
export function passphraseBytes(passphrase: string): Buffer {
  return Buffer.from(passphrase.normalize('NFKC'), 'utf8')
}

export async function deriveMasterKey(passphrase: string, salt: Uint8Array, params: ScryptParams): Promise<Buffer> {
  const secret = passphraseBytes(passphrase)
  try {
    return await scryptAsync(secret, salt, params, 32)
  } finally {
    secret.fill(0)
  }
}

function recordKey(master: Uint8Array, salt: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', master, salt, RECORD_INFO, 32))
}

export function sealRecord(master: Uint8Array, plaintext: Uint8Array, aad: string): SealedRecord {
  const salt = randomBytes(16)
  const nonce = randomBytes(12)
  const key = recordKey(master, salt)
  try {
    const cipher = createCipheriv('aes-256-gcm', key, nonce)
    cipher.setAAD(Buffer.from(aad, 'utf8'))
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()])
    return {
      salt: salt.toString('hex'),
      nonce: nonce.toString('hex'),
      ciphertext: ciphertext.toString('hex'),
      tag: cipher.getAuthTag().toString('hex'),
    }
  } finally {
    key.fill(0)
  }
}

/** The plaintext, or null when authentication fails (wrong master key, tampered record or moved record). */
export function openRecord(master: Uint8Array, record: SealedRecord, aad: string): Buffer | null {
  const key = recordKey(master, Buffer.from(record.salt, 'hex'))
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(record.nonce, 'hex'))
    decipher.setAAD(Buffer.from(aad, 'utf8'))
    decipher.setAuthTag(Buffer.from(record.tag, 'hex'))
    return Buffer.concat([decipher.update(Buffer.from(record.ciphertext, 'hex')), decipher.final()])
  } catch {
    return null
  } finally {
    key.fill(0)
  }
}

/** HMAC over the file's canonical body, so labels and the account list cannot be altered unnoticed. */
export function fileMac(master: Uint8Array, canonicalBody: string): string {
  const key = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), MAC_INFO, 32))
  try {
    return createHmac('sha256', key).update(canonicalBody, 'utf8').digest('hex')
  } finally {
    key.fill(0)
  }
}

export function macEquals(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex')
  const y = Buffer.from(b, 'hex')
  return x.length === y.length && x.length === 32 && timingSafeEqual(x, y)
}
