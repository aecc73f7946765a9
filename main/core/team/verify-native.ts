/**
 * libsecp256k1's public-key recovery, through the N-API binding of the `secp256k1` package: ~80 µs
 * per signature on this 2-core machine, against ~300 µs for the JavaScript table check of
 * verify-ecdsa.ts (BigInt arithmetic) and ~300-450 µs for libsecp256k1 compiled to WebAssembly
 * (tiny-secp256k1 v2, measured and left out). The package ships N-API binaries for linux-x64,
 * darwin-arm64 and win32-x64 inside its npm tarball (no compiler, no download; one binary serves
 * Node 20, 22 and Electron alike, and loads in worker threads). It is loaded through
 * `secp256k1/bindings.js` only: the package's main entry silently falls back to `elliptic` when the
 * binary is missing, and a platform without one must get verify-ecdsa.ts instead (null here).
 */
import { createRequire } from 'node:module'

/** The binding's API as bindings.js wraps it (throws on a signature it cannot parse or recover from). */
interface Secp256k1Binding {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean, output?: Uint8Array): Uint8Array
}

let binding: Secp256k1Binding | null | undefined
let bindingPath: string | null = null
let enabled = true

function load(): Secp256k1Binding | null {
  if (binding !== undefined) return binding
  try {
    // createRequire so that no bundler (electron-vite, the CLI's esbuild) pulls the package in:
    // node-gyp-build finds the binary relative to the package's own directory at run time.
    const require = createRequire(import.meta.url)
    const path = require.resolve('secp256k1/bindings.js')
    binding = require(path) as Secp256k1Binding
    bindingPath = path
  } catch {
    binding = null
  }
  return binding
}

/** Where the binding was loaded from, for a worker thread to load the same one (null when not loaded). */
export const nativeBindingPath = (): string | null => (enabled && load() ? bindingPath : null)

/** For tests: turn the native path off (and on again) to exercise verify-ecdsa.ts on this machine. */
export function useNativeRecovery(on: boolean): void {
  enabled = on
}

/** True when signatures are recovered by libsecp256k1 in this process. */
export const nativeRecoveryAvailable = (): boolean => enabled && load() !== null

const out = new Uint8Array(65)

/**
 * The uncompressed public key (65 bytes, 0x04 | x | y) that signed `digest` with (r, s, recovery):
 * R is the point with x = r exactly and y parity = recovery, as viem's recovery reads v 27/28.
 * Undefined when the native binding is off or missing (the caller uses verify-ecdsa.ts); null when
 * nothing recovers (r or s out of range, no point with that x). The returned array is reused by the
 * next call: compare or copy it at once.
 */
export function nativeRecover(digest: Uint8Array, rs: Uint8Array, recovery: 0 | 1): Uint8Array | null | undefined {
  const b = enabled ? load() : null
  if (!b) return undefined
  try {
    return b.ecdsaRecover(rs, recovery, digest, false, out)
  } catch {
    return null
  }
}
