import { scryptAsync as nobleScryptAsync } from '@noble/hashes/scrypt'
import { pbkdf2, scrypt } from 'node:crypto'
import { vaultError } from './errors'

/** scrypt cost parameters. The vault records them in its file; keystores carry their own. */
export interface ScryptParams {
  n: number
  r: number
  p: number
}

/** The vault's default cost: N = 2^18, r = 8, p = 1 (as geth's and ethers' "standard" keystores). */
export const DEFAULT_SCRYPT: ScryptParams = { n: 2 ** 18, r: 8, p: 1 }

/**
 * Upper bounds for parameters read from untrusted files, so a crafted keystore cannot make
 * the process allocate gigabytes or spin for hours.
 */
export const KDF_LIMITS = {
  maxScryptMemBytes: 1024 * 1024 * 1024,
  maxScryptN: 2 ** 22,
  maxR: 64,
  maxP: 64,
  maxPbkdf2Iterations: 10_000_000,
}

/** Memory OpenSSL needs for scrypt (V plus B arrays), with slack; node's default cap (32 MiB) is too small for N=2^18, r=8. */
export function scryptMaxmem({ n, r, p }: ScryptParams): number {
  return 128 * r * (n + 2 + p) + 1024 * 1024
}

export function checkScryptParams(params: ScryptParams, where: string): void {
  const { n, r, p } = params
  const ok =
    Number.isSafeInteger(n) &&
    Number.isSafeInteger(r) &&
    Number.isSafeInteger(p) &&
    n > 1 &&
    (n & (n - 1)) === 0 &&
    n <= KDF_LIMITS.maxScryptN &&
    r >= 1 &&
    r <= KDF_LIMITS.maxR &&
    p >= 1 &&
    p <= KDF_LIMITS.maxP &&
    128 * r * n <= KDF_LIMITS.maxScryptMemBytes
  if (!ok) {
    throw vaultError(
      'KeystoreKdfParamsOutOfRange',
      `${where}: scrypt parameters out of the supported range (N a power of two up to 2^22, r and p 1..64, at most 1 GiB)`,
      { n, r, p },
    )
  }
}

/** OpenSSL's own bound besides memory: N < 2^(16r). */
function opensslAccepts({ n, r }: ScryptParams): boolean {
  return 16 * r >= 53 || n < 2 ** (16 * r)
}

/**
 * scrypt via node:crypto's asynchronous API, which runs in the libuv threadpool: unlocking
 * with N=2^18 never stalls the main event loop.
 */
export function scryptAsync(secret: Uint8Array, salt: Uint8Array, params: ScryptParams, dkLen: number): Promise<Buffer> {
  checkScryptParams(params, 'scrypt')
  if (!opensslAccepts(params)) {
    // OpenSSL refuses N >= 2^(16r) (geth's published vector uses N=2^18 with r=1). noble's
    // scrypt handles it on the main thread but yields every 10 ms, so the loop never stalls longer.
    return nobleScryptAsync(secret, salt, {
      N: params.n,
      r: params.r,
      p: params.p,
      dkLen,
      asyncTick: 10,
      maxmem: scryptMaxmem(params) * 2,
    }).then(
      (k) => Buffer.from(k.buffer, k.byteOffset, k.byteLength),
      (e: unknown) => Promise.reject(vaultError('KeystoreKdfParamsOutOfRange', `scrypt failed: ${(e as Error).message}`)),
    )
  }
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, dkLen, { N: params.n, r: params.r, p: params.p, maxmem: scryptMaxmem(params) }, (err, key) => {
      if (err) reject(vaultError('KeystoreKdfParamsOutOfRange', `scrypt failed: ${err.message}`))
      else resolve(key)
    })
  })
}

/** PBKDF2-HMAC-SHA256, also off the main thread. */
export function pbkdf2Sha256Async(secret: Uint8Array, salt: Uint8Array, iterations: number, dkLen: number): Promise<Buffer> {
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > KDF_LIMITS.maxPbkdf2Iterations) {
    return Promise.reject(
      vaultError('KeystoreKdfParamsOutOfRange', `pbkdf2 iteration count out of range (1..${KDF_LIMITS.maxPbkdf2Iterations})`, {
        c: iterations,
      }),
    )
  }
  return new Promise((resolve, reject) => {
    pbkdf2(secret, salt, iterations, dkLen, 'sha256', (err, key) => (err ? reject(err) : resolve(key)))
  })
}
