/**
 * Canonical JSON: the one byte string a payload hashes to, on every desk. Object keys sorted by
 * UTF-16 code unit, no whitespace, only strings, booleans, null, safe integers, arrays and plain
 * objects (amounts are decimal strings, never numbers). A stored payload that is not in this form
 * is refused, so two encodings of one value can never carry two hashes.
 */
import { keccak256, stringToHex, type Hex } from 'viem'
import { teamBadInput } from './errors'

export type Canonical = string | boolean | null | number | Canonical[] | { [key: string]: Canonical }

export function canonicalJson(value: unknown, path = '$'): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'number':
      if (!Number.isSafeInteger(value)) throw teamBadInput(`${path}: only safe integers are allowed (amounts are decimal strings)`, { path })
      return String(value)
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v, i) => canonicalJson(v, `${path}[${i}]`)).join(',')}]`
      const proto = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null) throw teamBadInput(`${path}: only plain objects are allowed`, { path })
      const obj = value as Record<string, unknown>
      const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort()
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k], `${path}.${k}`)}`).join(',')}}`
    }
    default:
      throw teamBadInput(`${path}: ${typeof value} is not allowed in a team payload`, { path })
  }
}

/** Parses a stored payload and checks it is exactly its canonical form. */
export function parseCanonical(text: string): Canonical {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw teamBadInput('payload is not JSON')
  }
  if (canonicalJson(value) !== text) throw teamBadInput('payload is not in canonical form')
  return value as Canonical
}

export function payloadHash(canonicalText: string): Hex {
  return keccak256(stringToHex(canonicalText))
}
