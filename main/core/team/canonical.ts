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
      if (!Number.isSafeInteger(value))
        throw teamBadInput(`${path}: only safe integers are allowed (amounts are decimal strings)`, { path })
      return String(value)
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v, i) => canonicalJson(v, `${path}[${i}]`)).join(',')}]`
      const proto = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null) throw teamBadInput(`${path}: only plain objects are allowed`, { path })
      const obj = value as Record<string, unknown>
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort()
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k], `${path}.${k}`)}`).join(',')}}`
    }
    default:
      throw teamBadInput(`${path}: ${typeof value} is not allowed in a team payload`, { path })
  }
}

/**
 * True when a value straight from JSON.parse serializes canonically in the order JSON.parse gave
 * its keys: every object's keys already sorted, every number a safe integer. Then canonicalJson
 * (which only sorts keys and checks numbers) and JSON.stringify produce the same text.
 */
function inCanonicalOrder(v: unknown): boolean {
  if (typeof v === 'number') return Number.isSafeInteger(v)
  if (typeof v !== 'object' || v === null) return true
  if (Array.isArray(v)) {
    for (const x of v) if (!inCanonicalOrder(x)) return false
    return true
  }
  let last: string | null = null
  for (const key of Object.keys(v)) {
    if (last !== null && !(last < key)) return false
    last = key
    if (!inCanonicalOrder((v as Record<string, unknown>)[key])) return false
  }
  return true
}

/**
 * Parses a stored payload and checks it is exactly its canonical form. The common case (a
 * canonical text) is decided by the native JSON.stringify plus a walk over keys and numbers;
 * anything that fails that test (including keys JSON.parse reorders, such as "10" before "9") gets
 * the full canonicalJson comparison, so the accepted set is exactly canonicalJson's.
 */
export function parseCanonical(text: string): Canonical {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw teamBadInput('payload is not JSON')
  }
  if (inCanonicalOrder(value) && JSON.stringify(value) === text) return value as Canonical
  if (canonicalJson(value) !== text) throw teamBadInput('payload is not in canonical form')
  return value as Canonical
}

export function payloadHash(canonicalText: string): Hex {
  return keccak256(stringToHex(canonicalText))
}
