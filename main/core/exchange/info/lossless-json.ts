import { DeskError } from '../../errors/desk-error'

/**
 * JSON.parse that never rounds a large integer: every integer literal of 16 or more digits
 * (outside strings) is turned into a digit string before parsing, so ids, heights, nonces and
 * atoms above 2^53 arrive exactly. Schemas then read such fields as "integer number or digit
 * string" into bigint. Texts without any 16-digit run take the plain JSON.parse path.
 */
const LONG_DIGITS = /\d{16}/
// Strings are matched first so digits inside them are skipped; the look-behind keeps fraction
// and exponent digits (after "." or "e") out, the look-ahead keeps "123...4.5" (a float) out.
const STRING_OR_BIG_INT = /"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])(-?\d{16,})(?=\s*[,\]}]|\s*$)/g

export function parseJsonLossless(text: string): unknown {
  const prepared = LONG_DIGITS.test(text) ? text.replace(STRING_OR_BIG_INT, (m, big: string | undefined) => (big ? `"${big}"` : m)) : text
  try {
    return JSON.parse(prepared) as unknown
  } catch {
    throw new DeskError('MalformedJson', 'the service answered with text that is not valid JSON', {
      excerpt: text.length > 120 ? text.slice(0, 120) + '…' : text,
    })
  }
}
