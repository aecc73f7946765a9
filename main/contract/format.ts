/**
 * The one way the desk shows numbers, money, rates, times and accounts — in every renderer
 * screen and dialog, every toast and preview text built in main, and in the CLI. Pure functions
 * on strings and bigints: amounts are never turned into floats.
 *
 * Rounding is for reading only. What is sent, signed, compared or exported always keeps every
 * digit; the formatters below round only the text a person reads, and say how:
 * - USD (`formatUsdCents`) is a valuation (an amount times a mark), shown to the cent, rounded
 *   half away from zero on the decimal string (as a spreadsheet or Intl.NumberFormat rounds it,
 *   so an operator checking a figure elsewhere sees the same cents). The exact value goes in a
 *   title and in exports (`formatUsd`).
 * - An asset amount read from the desk's state (a balance, a yield, a position) is shown in the
 *   asset's display precision (`assetDisplayDecimals`: USD stablecoins to the cent, others at
 *   the digits received), rounded toward minus infinity: a holding is never shown larger than
 *   it is, a debt never smaller; a positive amount below the precision reads "<0.01 USDC",
 *   never "0". The amount of a write (what the operator typed and will sign) is never cut:
 *   `formatAmount` without `display` shows every digit.
 */

/** What every unknown value shows (with its reason next to it or in its title). */
export const UNKNOWN = '—'

/** A value ready to show: its text, and why it is unknown when it is. */
export interface Display {
  text: string
  /** Set when the value is unknown (text is UNKNOWN): say why, e.g. as a title. */
  reason: string | null
}

const PLAIN = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/

interface Parts {
  negative: boolean
  int: string
  frac: string
}

function parts(value: string): Parts | null {
  const s = value.trim()
  if (!PLAIN.test(s)) return null
  const negative = s.startsWith('-')
  const [int = '0', frac = ''] = (negative ? s.slice(1) : s).split('.')
  // "-0" and "-0.000" are zero: no sign.
  const zero = /^0*$/.test(int + frac)
  return { negative: negative && !zero, int, frac }
}

const group = (int: string) => int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')

/** Exact decimal string of `atoms` at `decimals` (trailing zeros trimmed): 1500000n, 6 → "1.5". */
export function atomsToDecimal(atoms: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0) throw new RangeError(`decimals must be a non-negative integer, got ${decimals}`)
  const negative = atoms < 0n
  const abs = negative ? -atoms : atoms
  const scale = 10n ** BigInt(decimals)
  const frac = decimals > 0 ? (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '') : ''
  return `${negative ? '-' : ''}${abs / scale}${frac ? `.${frac}` : ''}`
}

/**
 * A plain decimal with thousands separators, digits exactly as given: trailing zeros trimmed
 * when `trim` (default), then padded to `minDecimals`. Not a plain decimal → returned as is
 * (a display never throws on a value main sent).
 */
export function formatNumber(value: string, opts: { minDecimals?: number; trim?: boolean } = {}): string {
  const p = parts(value)
  if (!p) return value
  const frac = (opts.trim === false ? p.frac : p.frac.replace(/0+$/, '')).padEnd(opts.minDecimals ?? 0, '0')
  return `${p.negative ? '-' : ''}${group(p.int)}${frac ? `.${frac}` : ''}`
}

/** The asset an amount is in: its symbol, and its decimals when the amount is in atoms. */
export interface AssetUnits {
  symbol: string
  decimals: number
}

/** USD stablecoins: shown to the cent like USD itself. */
const USD_STABLE = /^(USD[A-Z0-9]{0,4}|[A-Z]{1,4}USD|DAI)$/

/**
 * How many decimals a person reads for an asset's amounts: two for a USD stablecoin ("USDC",
 * "USDT"), else the asset's own precision (`decimals`, null when unknown: every digit received).
 */
export function assetDisplayDecimals(symbol: string, decimals?: number | null): number | null {
  if (USD_STABLE.test(symbol.trim().toUpperCase())) return decimals === undefined || decimals === null ? 2 : Math.min(2, decimals)
  return decimals ?? null
}

/**
 * A plain decimal cut to `places` decimals, rounded toward minus infinity (a holding is never
 * shown larger, a debt never smaller); `below` when a positive value was cut to zero.
 */
function floorTo(p: Parts, places: number): { parts: Parts; below: boolean } {
  if (p.frac.length <= places) return { parts: p, below: false }
  const kept = p.frac.slice(0, places)
  const dropped = /[1-9]/.test(p.frac.slice(places))
  let digits = BigInt(p.int + kept)
  if (p.negative && dropped) digits += 1n
  const scale = 10n ** BigInt(places)
  const int = (digits / scale).toString()
  const frac = places > 0 ? (digits % scale).toString().padStart(places, '0') : ''
  const zero = digits === 0n
  return { parts: { negative: p.negative && !zero, int, frac }, below: zero && !p.negative && dropped }
}

/**
 * An amount in the asset's units with its symbol: "1,234.5 USDC". A bigint is atoms (scaled by
 * the asset's decimals), a string a decimal in units. Trailing zeros are trimmed unless
 * `minDecimals` pads them (aligned columns). With `display` (an amount read from the desk's
 * state, never one being signed) it is cut to the asset's display precision
 * (`assetDisplayDecimals`): "49,000.08483638" USDC reads "49,000.08 USDC", "0.006" reads
 * "<0.01 USDC". Null/undefined → UNKNOWN.
 */
export function formatAmount(
  value: string | bigint | null | undefined,
  asset: AssetUnits | { symbol: string },
  opts: { minDecimals?: number; display?: boolean } = {},
): string {
  if (value === null || value === undefined) return UNKNOWN
  let decimal: string
  if (typeof value === 'bigint') {
    if (!('decimals' in asset)) throw new TypeError(`an amount in atoms needs the decimals of ${asset.symbol}`)
    decimal = atomsToDecimal(value, asset.decimals)
  } else {
    decimal = value
  }
  let n: string
  const places = opts.display ? assetDisplayDecimals(asset.symbol, 'decimals' in asset ? asset.decimals : null) : null
  const p = places === null ? null : parts(decimal)
  if (p && places !== null) {
    const cut = floorTo(p, places)
    const frac = cut.parts.frac.replace(/0+$/, '').padEnd(Math.min(opts.minDecimals ?? 0, places), '0')
    n = cut.below
      ? `<${places > 0 ? `0.${'1'.padStart(places, '0')}` : '1'}`
      : `${cut.parts.negative ? '-' : ''}${group(cut.parts.int)}${frac ? `.${frac}` : ''}`
  } else {
    n = formatNumber(decimal, { minDecimals: opts.minDecimals ?? 0 })
  }
  return asset.symbol ? `${n} ${asset.symbol}` : n
}

/** Whether `formatAmount(value, asset, { display: true })` hides digits (then show the exact amount on hover). */
export function amountIsCut(value: string | null | undefined, asset: AssetUnits | { symbol: string }): boolean {
  if (value === null || value === undefined) return false
  const places = assetDisplayDecimals(asset.symbol, 'decimals' in asset ? asset.decimals : null)
  const p = parts(value)
  return places !== null && p !== null && p.frac.replace(/0+$/, '').length > places
}

/** An asset as people name it: its symbol ("USDC"); its id and decimals stay out of the text. */
export function formatAssetName(asset: { symbol: string }): string {
  return asset.symbol
}

/** A market as people name it: "BTC/USDC" (the symbol the service gives it); its id stays out of the text. */
export function formatMarketName(market: { symbol: string }): string {
  return market.symbol
}

/**
 * USD, one way everywhere: "$1,234,567.89", "-$1,234.50", at least two decimals and any
 * further digits kept exactly (never rounded: "$0.000125"). Null/undefined → UNKNOWN.
 */
export function formatUsd(value: string | null | undefined): string {
  if (value === null || value === undefined) return UNKNOWN
  const p = parts(value)
  if (!p) return value
  const frac = p.frac.replace(/0+$/, '').padEnd(2, '0')
  return `${p.negative ? '-' : ''}$${group(p.int)}.${frac}`
}

/**
 * USD for headlines and tables: "$727,023.61" — rounded half away from zero to cents, on the
 * decimal string (never a float). Display only: the exact value (`formatUsd`) belongs in the
 * title beside it and in exports. Null/undefined → UNKNOWN.
 */
export function formatUsdCents(value: string | null | undefined): string {
  if (value === null || value === undefined) return UNKNOWN
  const p = parts(value)
  if (!p) return value
  if (p.frac.length <= 2) return formatUsd(value)
  let cents = BigInt(p.int + p.frac.slice(0, 2))
  if (Number(p.frac[2]) >= 5) cents += 1n
  const int = (cents / 100n).toString()
  const frac = (cents % 100n).toString().padStart(2, '0')
  const negative = p.negative && cents !== 0n
  return `${negative ? '-' : ''}$${group(int)}.${frac}`
}

/** Whether the cents shown by `formatUsdCents` differ from the exact value (then show the exact one on hover). */
export function usdIsRounded(value: string | null | undefined): boolean {
  if (value === null || value === undefined) return false
  const p = parts(value)
  return p !== null && p.frac.replace(/0+$/, '').length > 2
}

/** USD with the reason it is unknown (e.g. "no mark for BTC"), for a title or a note. */
export function describeUsd(value: string | null | undefined, reasonIfUnknown: string): Display {
  return value === null || value === undefined ? { text: UNKNOWN, reason: reasonIfUnknown } : { text: formatUsd(value), reason: null }
}

/** Moves the decimal point of an exact decimal by `places` to the right (×10^places). */
function shift(value: string, places: number): string | null {
  const p = parts(value)
  if (!p) return null
  const digits = p.int + p.frac
  const point = p.int.length + places
  const padded = point > digits.length ? digits.padEnd(point, '0') : digits
  const int = padded.slice(0, point).replace(/^0+(?=\d)/, '') || '0'
  const frac = padded.slice(point).replace(/0+$/, '')
  return `${p.negative ? '-' : ''}${int}${frac ? `.${frac}` : ''}`
}

/** A rate given as a fraction, as a percentage: APY "0.065" → "6.5%". Null → UNKNOWN. */
export function formatRate(fraction: string | null | undefined): string {
  if (fraction === null || fraction === undefined) return UNKNOWN
  const pct = shift(fraction, 2)
  return pct === null ? fraction : `${formatNumber(pct)}%`
}

/** A value already in percent: "75.5" → "75.5%". Null → UNKNOWN. */
export function formatPercent(percent: string | null | undefined): string {
  if (percent === null || percent === undefined) return UNKNOWN
  return parts(percent) ? `${formatNumber(percent)}%` : percent
}

/** A span of time, compact: "12s", "1m 5s", "3h 2m", "2d 4h". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m ${s % 60}s`
  const h = Math.floor(m / 60)
  if (h < 48) return `${h}h ${m % 60}m`
  return `${Math.floor(h / 24)}d ${h % 24}h`
}

/**
 * A span of time in words, exact (for settings such as a cooling-off, where "about" will not
 * do): "60 seconds", "1 minute 30 seconds", "24 hours", "1 day 2 hours", "1.5 seconds".
 */
export function formatDurationWords(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) return UNKNOWN
  if (ms === 0) return '0 seconds'
  const word = (n: number | string, unit: string) => `${n} ${unit}${n === 1 || n === '1' ? '' : 's'}`
  if (ms < 60_000 && ms % 1000 !== 0) {
    // Seconds with the exact milliseconds as decimals (integer arithmetic, no float text).
    const frac = String(ms % 1000)
      .padStart(3, '0')
      .replace(/0+$/, '')
    return word(`${Math.floor(ms / 1000)}.${frac}`, 'second')
  }
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
    [1, 'millisecond'],
  ]
  const out: string[] = []
  let rest = ms
  for (const [size, unit] of units) {
    const n = Math.floor(rest / size)
    rest -= n * size
    if (n > 0) out.push(word(n, unit))
  }
  return out.join(' ')
}

/**
 * Relative age of a reading: "12s ago"; an unknown time is "never". A time ahead of now (a
 * clock a little ahead of this one) counts as 0s: for a time that is meant to be in the future
 * use `formatRelative`, which says "in …".
 */
export function formatAge(atMs: number | null | undefined, nowMs: number): string {
  if (atMs === null || atMs === undefined) return 'never'
  return `${formatDuration(nowMs - atMs)} ago`
}

/**
 * A time relative to now, either way: "12s ago", "in 5m 0s", "now" within the second ahead.
 * A future time never says "ago". Unknown → UNKNOWN.
 */
export function formatRelative(atMs: number | null | undefined, nowMs: number): string {
  if (atMs === null || atMs === undefined || !Number.isFinite(atMs)) return UNKNOWN
  if (atMs > nowMs) return atMs - nowMs < 1000 ? 'now' : `in ${formatDuration(atMs - nowMs)}`
  return `${formatDuration(nowMs - atMs)} ago`
}

/** Countdown to a time: "in 1m 5s", "now" once reached; unknown → UNKNOWN. */
export function formatCountdown(atMs: number | null | undefined, nowMs: number): string {
  if (atMs === null || atMs === undefined) return UNKNOWN
  return atMs <= nowMs ? 'now' : `in ${formatDuration(atMs - nowMs)}`
}

/**
 * Formatters by zone: building one costs about ten times a format (a table of 200 times,
 * re-rendered every second, spent most of its render building them). The system zone's is keyed
 * by its current UTC offset too, so a zone change (TZ in Node) is not served from the old one.
 */
const timeFormats = new Map<string, Intl.DateTimeFormat>()
function timeFormat(timeZone: string | undefined, zone: boolean): Intl.DateTimeFormat {
  const key = `${timeZone ?? `system ${new Date().getTimezoneOffset()}`}|${zone ? 'z' : ''}`
  let f = timeFormats.get(key)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      ...(zone ? { timeZoneName: 'short' as const } : {}),
    })
    // An invalid zone threw above and is not kept; a bounded map all the same.
    if (timeFormats.size >= 64) timeFormats.clear()
    timeFormats.set(key, f)
  }
  return f
}

/**
 * A time in the operator's zone (or `timeZone`, an IANA name), 24-hour:
 * "2026-11-23 23:54:00"; with `zone: true` the zone's short name follows ("… UTC", "… GMT+1").
 */
export function formatTime(ms: number | null | undefined, opts: { timeZone?: string; zone?: boolean } = {}): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return UNKNOWN
  const p = Object.fromEntries(
    timeFormat(opts.timeZone, !!opts.zone)
      .formatToParts(new Date(ms))
      .map((x) => [x.type, x.value]),
  )
  const text = `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`
  return opts.zone && p.timeZoneName ? `${text} ${p.timeZoneName}` : text
}

/**
 * A time with its relative part: "2026-11-23 23:54:00 (12s ago)", "… (in 5m 0s)" for a future
 * time; with `zone: true` the zone's short name follows the time, as `formatWhen` does.
 */
export function formatTimeWithAge(ms: number | null | undefined, nowMs: number, opts: { timeZone?: string; zone?: boolean } = {}): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return UNKNOWN
  return `${formatTime(ms, opts)} (${formatRelative(ms, nowMs)})`
}

/**
 * The desk's one way to say when, for a person: local time, 24-hour, with its zone, and the
 * relative part beside it: "2026-11-29 17:54:27 CET (in 5m 0s)", "2026-11-23 23:54:00 UTC (12s ago)".
 */
export function formatWhen(ms: number | null | undefined, nowMs: number, opts: { timeZone?: string } = {}): string {
  return formatTimeWithAge(ms, nowMs, { ...opts, zone: true })
}

/** An address shortened for tables: "0x12ab…cdef" (the full one goes in a title or copy). */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address
}

/** An account as the operator knows it: "Name (0x12ab…cdef)", and its full address. */
export function formatAccount(account: { address: string; label?: string | null } | string): { text: string; full: string } {
  if (typeof account === 'string') return { text: shortAddress(account), full: account }
  const name = account.label?.trim() || 'unnamed'
  return { text: `${name} (${shortAddress(account.address)})`, full: account.address }
}

/**
 * A report currency as the operator picks it: "USD", or "BTC — mark $64,974.20, 2m 5s ago"
 * (the mark at cents; the exact mark and its time are in the export's rows).
 */
export function formatCurrencyOption(c: { code: string; markUsd: string | null; markTimeMs: number | null }, nowMs: number): string {
  if (c.markUsd === null) return c.code
  return `${c.code} — mark ${formatUsdCents(c.markUsd)}, ${formatAge(c.markTimeMs, nowMs)}`
}

/**
 * An earn withdrawal as the operator knows it — by asset, amount and when it was asked for:
 * "scheduled withdrawal of 1,000 USDC, created 2026-11-25 08:00:00". Its operation id stays
 * out of the text (a title or the export carries it).
 */
export function formatEarnWithdrawal(
  w: { symbol: string; type: string; gross: string; createdAt: number | null },
  opts: { timeZone?: string } = {},
): string {
  const created = w.createdAt === null ? '' : `, created ${formatTime(w.createdAt, opts)}`
  return `${w.type} withdrawal of ${formatAmount(w.gross, { symbol: w.symbol })}${created}`
}
