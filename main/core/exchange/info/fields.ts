import { OWNER_PARAM } from '../../wire/assumptions'
import * as v from 'valibot'

/**
 * Field schemas shared by the /info response files. Large integers (tid, oid, heights, nonces,
 * atoms) arrive either as safe JSON integers or as digit strings (see lossless-json) and come
 * out as bigint; a number that already lost precision (unsafe) is refused, never rounded.
 */
const DIGITS = /^(0|[1-9][0-9]*)$/
const SIGNED_DIGITS = /^-?(0|[1-9][0-9]*)$/

/** Non-negative integer id/height/nonce/atoms: safe JSON integer or digit string -> bigint. */
export const uint = v.pipe(
  v.union([
    v.pipe(v.number(), v.safeInteger('integer above 2^53 lost precision'), v.minValue(0)),
    v.pipe(v.string(), v.regex(DIGITS, 'must be a non-negative integer')),
  ]),
  v.transform((x) => BigInt(x)),
)
/** Signed integer (positions): safe JSON integer or signed digit string -> bigint. */
export const sint = v.pipe(
  v.union([
    v.pipe(v.number(), v.safeInteger('integer above 2^53 lost precision')),
    v.pipe(v.string(), v.regex(SIGNED_DIGITS, 'must be an integer')),
  ]),
  v.transform((x) => BigInt(x)),
)
/** Small integer fields (decimals, asset and market ids, slots, percentages). */
export const int = v.pipe(v.number(), v.safeInteger())
export const nonNegInt = v.pipe(v.number(), v.safeInteger(), v.minValue(0))
/** Milliseconds timestamp (below 2^53). */
export const timeMs = v.pipe(v.number(), v.safeInteger(), v.minValue(0))
/** Display decimal as the service formats it (may be signed). */
export const decimalStr = v.pipe(v.string(), v.regex(/^-?(0|[0-9]+)(\.[0-9]+)?$/, 'must be a decimal string'))
export const address = v.pipe(
  v.string(),
  v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 20-byte 0x address'),
  v.transform((s) => s.toLowerCase() as `0x${string}`),
)
export const cloid = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{32}$/, 'must be a 16-byte 0x cloid'))
export const hex = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]*$/, 'must be 0x hex'))
export const accountStatus = v.picklist(['active', 'frozen'])

/** Request helpers. */
export const reqAddress = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 20-byte 0x address'))
export const reqId = v.union([
  v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  v.pipe(v.bigint(), v.minValue(0n)),
  v.pipe(v.string(), v.regex(DIGITS)),
])

export type Uint = bigint

/**
 * Rows of a listing whose envelope key the spec does not name: a bare array, or an object
 * holding the rows under one of `keys`. Either way the caller gets the validated rows.
 */
export function rowsEnvelope<TRow extends v.GenericSchema>(keys: readonly string[], row: TRow) {
  const arr = v.array(row)
  return v.pipe(
    v.union([arr, ...keys.map((k) => v.looseObject({ [k]: arr }))]),
    v.transform((x): v.InferOutput<TRow>[] => {
      if (Array.isArray(x)) return x as v.InferOutput<TRow>[]
      const o = x as Record<string, unknown>
      for (const k of keys) if (Array.isArray(o[k])) return o[k] as v.InferOutput<TRow>[]
      return []
    }),
  )
}

export const noParams = v.optional(v.strictObject({}), {})
/** The owner parameter of the reads whose parameter names the spec does not show (shared with the sandbox). */
export const userParams = v.strictObject({ [OWNER_PARAM]: reqAddress })
