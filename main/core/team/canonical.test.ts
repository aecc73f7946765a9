import { describe, expect, it } from 'vitest'
import { canonicalJson, parseCanonical } from './canonical'
import { entryDigest, unsignedEntry, ZERO_HASH } from './entry'

describe('parseCanonical accepts exactly what canonicalJson produces', () => {
  it('accepts keys JSON.parse reorders (integer-like keys) when the text is sorted, and refuses their parse order', () => {
    const sorted = canonicalJson({ 9: 'b', 10: 'a', x: 1 })
    expect(sorted).toBe('{"10":"a","9":"b","x":1}')
    expect(parseCanonical(sorted)).toEqual({ 10: 'a', 9: 'b', x: 1 })
    expect(() => parseCanonical('{"9":"b","10":"a","x":1}')).toThrow(/canonical/)
  })

  it('refuses unsorted nested keys, duplicates, floats, exponents, -0, escapes JSON.stringify would not write, and whitespace', () => {
    expect(parseCanonical('{"a":[{"b":1,"c":{"d":null,"e":true}}]}')).toEqual({ a: [{ b: 1, c: { d: null, e: true } }] })
    for (const text of [
      '{"a":[{"c":1,"b":2}]}',
      '{"a":1,"a":1}',
      '{"a":1.5}',
      '{"a":1e2}',
      '{"a":-0}',
      '{"a":"\\u0041"}',
      '[1, 2]',
      '{"a":9007199254740993}',
    ]) {
      expect(() => parseCanonical(text), text).toThrow()
    }
  })
})

describe('entry digest input checks', () => {
  it('refuses a prev or team id that is not a 32-byte hex word instead of hashing it', () => {
    const e = unsignedEntry(1n, ZERO_HASH, 'policy', { version: 1, rules: [] })
    expect(() => entryDigest(`0x${'ab'.repeat(32)}`, { ...e, prev: '0x12' })).toThrow(RangeError)
    expect(() => entryDigest('0xab', e)).toThrow(RangeError)
  })
})
