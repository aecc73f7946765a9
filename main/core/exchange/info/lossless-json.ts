import { DeskError } from '../../errors/desk-error'

/**
 * JSON.parse that never rounds a large integer: every integer literal of 16 or more digits
 * (outside strings) is turned into a digit string before parsing, so ids, heights, nonces and
 * atoms above 2^53 arrive exactly. Schemas then read such fields as "integer number or digit
 * string" into bigint. Texts without such a literal take the plain JSON.parse path.
 */
// A number literal follows ":", "[" or "," (or starts the text); hex digits of addresses and
// hashes never do, so most frames skip the rewrite. A false positive only costs time.
const MAYBE_BIG_INT = /(?:^|[:[,])\s*-?\d{16}/
// Strings are matched first (unrolled loop, fast) so digits inside them are skipped; the
// look-behind keeps fraction and exponent digits out, the look-ahead keeps floats out.
const STRING_OR_BIG_INT = /"[^"\\]*(?:\\.[^"\\]*)*"|(?<![\d.eE+-])(-?\d{16,})(?=\s*[,\]}]|\s*$)/g

export function parseJsonLossless(text: string): unknown {
  const prepared = MAYBE_BIG_INT.test(text) ? text.replace(STRING_OR_BIG_INT, (m, big: string | undefined) => (big ? `"${big}"` : m)) : text
  try {
    return JSON.parse(prepared) as unknown
  } catch {
    throw new DeskError('MalformedJson', 'the service answered with text that is not valid JSON', {
      excerpt: text.length > 120 ? text.slice(0, 120) + '…' : text,
    })
  }
}
