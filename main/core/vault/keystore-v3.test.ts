import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto'
import { bytesToHex, hexToBytes, keccak256 } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import vectors from './testing/geth-v3-test-vectors.json'
import { decryptKeystore, encryptKeystore, type KeystoreV3 } from './keystore-v3'
import { SECP256K1_N } from './private-key'

type Vector = { json: unknown; password: string; priv: string }
const V = vectors as unknown as Record<
  'wikipage_test_vector_scrypt' | 'wikipage_test_vector_pbkdf2' | '31_byte_key' | '30_byte_key',
  Vector
>
const LOW = { n: 1024, r: 8, p: 1 }

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toMatchObject({ name: 'DeskError', code })
}

/** A keystore built by hand (independently of the module under test), e.g. around an invalid key. */
function handMadeKeystore(plain: Uint8Array, password: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const salt = randomBytes(32)
  const iv = randomBytes(16)
  const dk = scryptSync(Buffer.from(password), salt, 32, { N: 1024, r: 8, p: 1 })
  const c = createCipheriv('aes-128-ctr', dk.subarray(0, 16), iv)
  const ciphertext = Buffer.concat([c.update(plain), c.final()])
  const mac = keccak256(Buffer.concat([dk.subarray(16, 32), ciphertext])).slice(2)
  return {
    version: 3,
    id: '0d5c4ac4-2c1c-4b52-9b1c-6b3e0a8f5b11',
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'scrypt',
      kdfparams: { dklen: 32, n: 1024, r: 8, p: 1, salt: salt.toString('hex') },
      mac,
    },
    ...extra,
  }
}

describe('import of geth v3 test vectors', () => {
  for (const name of ['wikipage_test_vector_scrypt', 'wikipage_test_vector_pbkdf2', '31_byte_key', '30_byte_key'] as const) {
    it(`decrypts ${name}`, async () => {
      const v = V[name]
      const { key, address } = await decryptKeystore(v.json, v.password)
      expect(key.length).toBe(32)
      expect(bytesToHex(key)).toBe(`0x${v.priv.padStart(64, '0')}`)
      expect(address).toBe(privateKeyToAddress(`0x${v.priv.padStart(64, '0')}`))
    })
  }

  it('accepts the file as text too, and geth-era "Crypto" capitalisation', async () => {
    const v = V['31_byte_key']
    const j = v.json as { crypto: unknown }
    const text = JSON.stringify({ ...j, crypto: undefined, Crypto: j.crypto })
    const { key } = await decryptKeystore(text, v.password)
    expect(bytesToHex(key)).toBe(`0x00${v.priv}`)
  })
})

describe('keystore errors', () => {
  const base = V['31_byte_key']
  const withCrypto = (patch: Record<string, unknown>) => {
    const j = structuredClone(base.json) as { crypto: Record<string, unknown> }
    Object.assign(j.crypto, patch)
    return j
  }

  it('wrong passphrase is a MAC mismatch', () => expectCode(decryptKeystore(base.json, 'bar'), 'KeystoreMacMismatch'))
  it('a flipped MAC bit is a MAC mismatch', async () => {
    const j = withCrypto({ mac: 'c5e116151c6aa71470e67a7d42c9620c75c4d23229847dcc127794f0732b0db5' })
    await expectCode(decryptKeystore(j, base.password), 'KeystoreMacMismatch')
  })
  it('a flipped ciphertext bit is a MAC mismatch', async () => {
    const j = withCrypto({ ciphertext: '8517cd5bdbe69076f9bf5057248c6c050141e970efa36ce53692d5d59a3984' })
    await expectCode(decryptKeystore(j, base.password), 'KeystoreMacMismatch')
  })
  it('unknown KDF', () => expectCode(decryptKeystore(withCrypto({ kdf: 'argon2id' }), 'foo'), 'KeystoreUnsupportedKdf'))
  it('unknown pbkdf2 prf', async () => {
    const j = structuredClone(V.wikipage_test_vector_pbkdf2.json) as { crypto: { kdfparams: Record<string, unknown> } }
    j.crypto.kdfparams.prf = 'hmac-sha512'
    await expectCode(decryptKeystore(j, 'testpassword'), 'KeystoreUnsupportedKdf')
  })
  it('unknown cipher', () => expectCode(decryptKeystore(withCrypto({ cipher: 'aes-128-cbc' }), 'foo'), 'KeystoreUnsupportedCipher'))
  it('invalid hex', () => expectCode(decryptKeystore(withCrypto({ ciphertext: 'zz17cd' }), 'foo'), 'KeystoreInvalid'))
  it('odd-length hex', () => expectCode(decryptKeystore(withCrypto({ mac: 'abc' }), 'foo'), 'InvalidHex'))
  it('absurd scrypt cost is refused before any work', () =>
    expectCode(
      decryptKeystore(withCrypto({ kdfparams: { dklen: 32, n: 2 ** 30, r: 8, p: 1, salt: 'aa' } }), 'foo'),
      'KeystoreKdfParamsOutOfRange',
    ))
  it('not JSON, wrong version, missing crypto', async () => {
    await expectCode(decryptKeystore('{"version":3,', 'foo'), 'KeystoreInvalid')
    await expectCode(decryptKeystore({ ...(base.json as object), version: 1 }, 'foo'), 'KeystoreInvalid')
    await expectCode(decryptKeystore({ version: 3 }, 'foo'), 'KeystoreInvalid')
  })
  it('a key out of the curve range (n) is InvalidPrivateKey', async () => {
    const n = hexToBytes(`0x${SECP256K1_N.toString(16)}`)
    await expectCode(decryptKeystore(handMadeKeystore(n, 'pw'), 'pw'), 'InvalidPrivateKey')
    await expectCode(decryptKeystore(handMadeKeystore(new Uint8Array(32), 'pw'), 'pw'), 'InvalidPrivateKey')
  })
  it('an address field that does not match the key', async () => {
    const key = randomBytes(32)
    await expectCode(decryptKeystore(handMadeKeystore(key, 'pw', { address: '00'.repeat(20) }), 'pw'), 'KeystoreAddressMismatch')
    // Foundry may omit the address; a matching one is fine.
    const addr = privateKeyToAddress(bytesToHex(key)).slice(2).toLowerCase()
    await expect(decryptKeystore(handMadeKeystore(key, 'pw', { address: addr }), 'pw')).resolves.toMatchObject({
      address: privateKeyToAddress(bytesToHex(key)),
    })
  })
})

/** Checks an exported keystore the way ethers and viem-based tooling read it, independently of our decoder. */
function checkShapeAndMac(ks: KeystoreV3, key: Uint8Array, password: string): void {
  expect(ks.version).toBe(3)
  expect(ks.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  expect(ks.address).toBe(privateKeyToAddress(bytesToHex(key)).slice(2).toLowerCase())
  expect(ks.crypto.cipher).toBe('aes-128-ctr')
  expect(ks.crypto.cipherparams.iv).toMatch(/^[0-9a-f]{32}$/)
  const ct = Buffer.from(ks.crypto.ciphertext, 'hex')
  expect(ct.length).toBe(32)
  let dk: Buffer
  if (ks.crypto.kdf === 'scrypt') {
    const p = ks.crypto.kdfparams as { dklen: number; n: number; r: number; p: number; salt: string }
    expect(p.dklen).toBe(32)
    dk = scryptSync(Buffer.from(password), Buffer.from(p.salt, 'hex'), 32, { N: p.n, r: p.r, p: p.p, maxmem: 512 * 1024 * 1024 })
  } else {
    const p = ks.crypto.kdfparams as { dklen: number; c: number; prf: string; salt: string }
    expect(p.prf).toBe('hmac-sha256')
    dk = pbkdf2Sync(Buffer.from(password), Buffer.from(p.salt, 'hex'), p.c, 32, 'sha256')
  }
  expect(ks.crypto.mac).toBe(keccak256(Buffer.concat([dk.subarray(16, 32), ct])).slice(2))
  const d = createDecipheriv('aes-128-ctr', dk.subarray(0, 16), Buffer.from(ks.crypto.cipherparams.iv, 'hex'))
  expect(bytesToHex(Buffer.concat([d.update(ct), d.final()]))).toBe(bytesToHex(key))
}

describe('export', () => {
  it('scrypt keystore round-trips and matches the v3 layout', async () => {
    const key = new Uint8Array(randomBytes(32))
    const ks = await encryptKeystore(key, 'export passphrase 1', { kdf: 'scrypt', scrypt: LOW })
    checkShapeAndMac(ks, key, 'export passphrase 1')
    const back = await decryptKeystore(JSON.stringify(ks), 'export passphrase 1')
    expect(bytesToHex(back.key)).toBe(bytesToHex(key))
    await expectCode(decryptKeystore(ks, 'export passphrase 2'), 'KeystoreMacMismatch')
  })

  it('pbkdf2 keystore round-trips', async () => {
    const key = new Uint8Array(randomBytes(32))
    const ks = await encryptKeystore(key, 'pbkdf2 export pass', { kdf: 'pbkdf2', iterations: 1000 })
    expect(ks.crypto.kdfparams).toMatchObject({ c: 1000, prf: 'hmac-sha256', dklen: 32 })
    checkShapeAndMac(ks, key, 'pbkdf2 export pass')
    expect(bytesToHex((await decryptKeystore(ks, 'pbkdf2 export pass')).key)).toBe(bytesToHex(key))
  })

  it('defaults to scrypt N=2^18, r=8, p=1 (the geth/ethers standard)', async () => {
    const key = hexToBytes(`0x${V.wikipage_test_vector_scrypt.priv}`)
    const ks = await encryptKeystore(key, 'testpassword')
    expect(ks.crypto.kdf).toBe('scrypt')
    expect(ks.crypto.kdfparams).toMatchObject({ n: 262144, r: 8, p: 1, dklen: 32 })
    checkShapeAndMac(ks, key, 'testpassword')
  })

  it('re-exports a 31-byte geth key padded to 32 bytes', async () => {
    const v = V['31_byte_key']
    const { key } = await decryptKeystore(v.json, v.password)
    const ks = await encryptKeystore(key, 'foo', { kdf: 'scrypt', scrypt: LOW })
    expect(bytesToHex((await decryptKeystore(ks, 'foo')).key)).toBe(`0x00${v.priv}`)
  })
})
