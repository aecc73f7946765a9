/**
 * Data that crosses the process boundary (IPC or the web host's socket). Plain JSON only:
 * amounts, prices, sizes, ids and nonces are decimal strings, never numbers; times are
 * Unix milliseconds as numbers (safe below 2^53).
 *
 * Shared by every feature's types (main/contract/<feature>.types.ts); main/contract/types.ts re-exports all of them.
 */

export type Address = `0x${string}`
/** A display decimal string, exact ("12.5"). */
export type Decimal = string
/** An integer atom string ("1250000000"). */
export type Atoms = string

export interface ErrorData {
  code: string
  message: string
  details?: Record<string, string | number | boolean | null>
}

/** Every invoke resolves to this: errors are plain data, never thrown stacks. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorData }
