/** Seeded generators of hostile input and the secret scan shared by the fuzz tests. */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20261123)

/** mulberry32: small, seeded, good enough to pick mutations reproducibly. */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const FIELDS = [
  'address',
  'owner',
  'account',
  'from',
  'to',
  'cashAccount',
  'creditAccount',
  'assetId',
  'amount',
  'price',
  'quantity',
  'slot',
  'passphrase',
  'name',
  'label',
  'url',
  'cloid',
  'oid',
  'marketId',
  'operationId',
  'format',
  'kind',
  'side',
  'id',
  'approved',
  'path',
]

export function fuzzValue(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * 22)
  switch (pick) {
    case 0:
      return undefined
    case 1:
      return null
    case 2:
      return NaN
    case 3:
      return -1
    case 4:
      return Number.MAX_SAFE_INTEGER + 2
    case 5:
      return 'x'.repeat(100_000)
    case 6:
      return '-1.5'
    case 7:
      return '0.123456789012345678901234567890'
    case 8:
      return '1e9'
    case 9:
      return '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' // bad EIP-55 checksum (last letter's case flipped)
    case 10:
      return '0x0000000000000000000000000000000000000000'
    case 11:
      return '0x000000000000000000000000000000000000dEaD'
    case 12:
      return 'javascript:alert(1)'
    case 13:
      return 'http://evil.example/'
    case 14:
      return '../../../../etc/passwd'
    case 15:
      return true
    case 16:
      return []
    case 17:
      return { __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } }
    case 18:
      return '\u0000\ud800'
    case 19:
      return depth < 2 ? fuzzObject(r, depth + 1) : {}
    case 20:
      return Infinity
    default:
      return String(Math.floor(r() * 1e6))
  }
}

export function fuzzObject(r: () => number, depth = 0): Record<string, unknown> {
  const o: Record<string, unknown> = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>
  const n = Math.floor(r() * 5)
  for (let i = 0; i < n; i++) o[FIELDS[Math.floor(r() * FIELDS.length)]!] = fuzzValue(r, depth)
  return o
}

export function fuzzArgs(r: () => number): unknown {
  return r() < 0.8 ? fuzzObject(r) : fuzzValue(r)
}

/** What must never appear anywhere: each key in hex and base64, and the passphrases. */
export function secretsOf(keys: readonly string[], passphrases: readonly string[]): string[] {
  const out: string[] = [...passphrases]
  for (const k of keys) {
    const hex = k.replace(/^0x/, '').toLowerCase()
    out.push(hex, Buffer.from(hex, 'hex').toString('base64'))
  }
  return out
}

export function filesUnder(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...filesUnder(p))
    else out.push(p)
  }
  return out
}
