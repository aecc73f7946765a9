import { describe, expect, it } from 'vitest'
import { parseJsonLossless } from './lossless-json'

describe('parseJsonLossless', () => {
  it('keeps integers above 2^53 exact as digit strings', () => {
    const v = parseJsonLossless('{"tid": 18446744073709551615, "oid":-9007199254740993,"small":42}') as Record<string, unknown>
    expect(v.tid).toBe('18446744073709551615')
    expect(v.oid).toBe('-9007199254740993')
    expect(v.small).toBe(42)
  })

  it('leaves digits inside strings, fractions and exponents alone', () => {
    const v = parseJsonLossless(
      '{"s":"1234567890123456789 \\" 99999999999999999","f":0.12345678901234567,"e":1e12345678901234567,"a":[12345678901234567890]}',
    ) as Record<string, unknown>
    expect(v.s).toBe('1234567890123456789 " 99999999999999999')
    expect(v.f).toBe(Number('0.12345678901234567'))
    expect(v.e).toBe(Infinity)
    expect(v.a).toEqual(['12345678901234567890'])
  })

  it('parses plain documents like JSON.parse', () => {
    const t = '{"a":[1,2,{"b":null,"c":true}],"d":"x"}'
    expect(parseJsonLossless(t)).toEqual(JSON.parse(t))
    expect(parseJsonLossless(' 12345678901234567890 ')).toBe('12345678901234567890')
  })

  it('reports invalid JSON as a typed error', () => {
    expect(() => parseJsonLossless('{"a":')).toThrow(expect.objectContaining({ code: 'MalformedJson' }))
    expect(() => parseJsonLossless('<html>502</html>')).toThrow(expect.objectContaining({ code: 'MalformedJson' }))
  })
})
