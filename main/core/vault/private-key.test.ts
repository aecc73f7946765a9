import { describe, expect, it } from 'vitest'
import { bytesToHex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { SECP256K1_N, addressOfKey, generatePrivateKey, normalizePrivateKey, parseAddress, parsePrivateKeyText } from './private-key'

const KEY = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'

describe('private keys', () => {
  it('parses hex with or without 0x and surrounding whitespace', () => {
    expect(bytesToHex(parsePrivateKeyText(`  ${KEY}\n`))).toBe(KEY)
    expect(bytesToHex(parsePrivateKeyText(KEY.slice(2).toUpperCase()))).toBe(KEY)
  })
  it('rejects invalid hex and wrong lengths with typed errors', () => {
    expect(() => parsePrivateKeyText('0xzz' + KEY.slice(4))).toThrow(expect.objectContaining({ code: 'InvalidHex' }))
    expect(() => parsePrivateKeyText(KEY.slice(0, -1))).toThrow(expect.objectContaining({ code: 'InvalidHex' }))
    expect(() => parsePrivateKeyText(KEY.slice(0, -2))).toThrow(expect.objectContaining({ code: 'InvalidPrivateKey' }))
  })
  it('rejects 0, n and above; accepts n-1', () => {
    const hex = (v: bigint) => v.toString(16).padStart(64, '0')
    expect(() => parsePrivateKeyText(hex(0n))).toThrow(expect.objectContaining({ code: 'InvalidPrivateKey' }))
    expect(() => parsePrivateKeyText(hex(SECP256K1_N))).toThrow(expect.objectContaining({ code: 'InvalidPrivateKey' }))
    expect(() => parsePrivateKeyText('f'.repeat(64))).toThrow(expect.objectContaining({ code: 'InvalidPrivateKey' }))
    expect(bytesToHex(parsePrivateKeyText(hex(SECP256K1_N - 1n)))).toBe(`0x${hex(SECP256K1_N - 1n)}`)
  })
  it('left-pads short keys', () => {
    expect(bytesToHex(normalizePrivateKey(new Uint8Array([1])))).toBe(`0x${'00'.repeat(31)}01`)
  })
  it('generates distinct in-range keys whose address viem agrees with', () => {
    const a = generatePrivateKey()
    const b = generatePrivateKey()
    expect(bytesToHex(a)).not.toBe(bytesToHex(b))
    expect(addressOfKey(a)).toBe(privateKeyToAddress(bytesToHex(a)))
  })
  it('checksums addresses and rejects junk', () => {
    expect(parseAddress('0x90f8bf6a479f320ead074411a4b0e7944ea8c9c1')).toBe('0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1')
    expect(() => parseAddress('0x1234')).toThrow(expect.objectContaining({ code: 'InvalidAddress' }))
  })
})
