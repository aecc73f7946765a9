/** Argument building blocks shared by the features' channels (main/contract/<feature>.channels.ts). */

import * as v from 'valibot'

export const address = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte address'))
/** Display decimal typed by the operator; exact precision is checked in main against the asset. */
export const decimal = v.pipe(v.string(), v.maxLength(80), v.regex(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/, 'must be a plain decimal number'))
export const idString = v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]{0,19})$/, 'must be a decimal integer'))
export const assetId = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2 ** 32 - 1))
export const slot = v.picklist([0, 1, 2, 3] as const)
export const label = v.pipe(v.string(), v.maxLength(64))
export const passphrase = v.pipe(v.string(), v.minLength(1), v.maxLength(1024))
export const cloid = v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{32}$/, 'must be 0x + 16 bytes hex'))
export const none = v.optional(v.undefined())
export const timeMs = v.pipe(v.number(), v.integer(), v.minValue(0))
export const url = v.pipe(v.string(), v.maxLength(400), v.regex(/^(https?|wss?):\/\/[^\s]+$/, 'must be an http(s) or ws(s) URL'))
export const text = (max = 200) => v.pipe(v.string(), v.maxLength(max))
export const filePath = v.pipe(v.string(), v.minLength(1), v.maxLength(4096))
export const optText = (max = 200) => v.optional(text(max))
