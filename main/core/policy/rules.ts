import { DeskError } from '../errors/desk-error'

/**
 * The operator's rules, their units and which direction is "tighter". Every value is stored as
 * a canonical decimal string (ms for durations) or null (off); comparisons are exact (bigint at a
 * fixed scale), never floats.
 */
export type RuleKind = 'usd' | 'percent' | 'duration' | 'asset-units'

export const USD_RULES = [
  'transfer-limit-usd',
  'withdraw-limit-usd',
  'transfer-daily-limit-usd',
  'withdraw-daily-limit-usd',
  'max-order-usd',
] as const
export type UsdRule = (typeof USD_RULES)[number]

/** Per-asset limits in asset units, suffixed with the asset id (`withdraw-asset-limit:1`). */
export const ASSET_RULES = [
  'transfer-asset-limit',
  'withdraw-asset-limit',
  'transfer-asset-daily-limit',
  'withdraw-asset-daily-limit',
] as const
export type AssetRule = (typeof ASSET_RULES)[number]

export const DAY_MS = 24 * 60 * 60 * 1000
export const REAL_COOLING_OFF_MS = DAY_MS
/** The sandbox's default cooling-off: short so a demo is usable, still long enough to be seen. */
export const SANDBOX_COOLING_OFF_MS = 60_000
export const DEFAULT_PRICE_BAND_PCT = '5'

export interface RuleSpec {
  kind: RuleKind
  unit: string
  /** 'lower': a lower value is tighter (limits, band); 'higher': a longer cooling-off is tighter. */
  tighter: 'lower' | 'higher'
}

const SCALE = 18
const MAX_DURATION_MS = 365 * DAY_MS

export function ruleSpec(name: string): RuleSpec {
  if ((USD_RULES as readonly string[]).includes(name)) {
    return {
      kind: 'usd',
      unit: name === 'max-order-usd' ? 'USD per order' : name.includes('daily') ? 'USD per rolling 24 h' : 'USD per transaction',
      tighter: 'lower',
    }
  }
  if (name === 'price-band' || /^price-band:(0|[1-9][0-9]{0,9})$/.test(name))
    return { kind: 'percent', unit: 'percent from the mark or the far side of the book', tighter: 'lower' }
  if (name === 'cooling-off') return { kind: 'duration', unit: 'ms', tighter: 'higher' }
  const m = /^([a-z-]+):(0|[1-9][0-9]{0,9})$/.exec(name)
  if (m && (ASSET_RULES as readonly string[]).includes(m[1]!))
    return {
      kind: 'asset-units',
      unit: m[1]!.includes('daily') ? 'asset units per rolling 24 h' : 'asset units per transaction',
      tighter: 'lower',
    }
  throw new DeskError(
    'UnknownPolicy',
    `unknown policy "${name.slice(0, 64)}": use ` +
      `${[...USD_RULES, 'price-band', 'price-band:<marketId>', 'cooling-off', ...ASSET_RULES.map((a) => `${a}:<assetId>`)].join(', ')}`,
    { name: name.slice(0, 64) },
  )
}

const DURATION = /^(0|[1-9][0-9]*)(ms|s|m|h|d)?$/
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS }

/** Parses an operator's value into the canonical stored form; null/"off" turns the rule off. */
export function canonicalValue(name: string, raw: string | null): string | null {
  const spec = ruleSpec(name)
  if (raw === null || raw.trim().toLowerCase() === 'off') return null
  const t = raw.trim()
  if (spec.kind === 'duration') {
    const m = DURATION.exec(t)
    if (!m) throw new DeskError('InvalidPolicyValue', `${name} must be a duration such as 24h, 30m, 60s or a number of ms`, { name })
    const ms = Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!
    if (!Number.isSafeInteger(ms) || ms > MAX_DURATION_MS)
      throw new DeskError('InvalidPolicyValue', `${name} must be at most 365 days`, { name })
    return String(ms)
  }
  if (!/^(0|[1-9][0-9]{0,17})(\.[0-9]{1,8})?$/.test(t))
    throw new DeskError('InvalidPolicyValue', `${name} must be a plain decimal number (at most 8 decimals) or "off"`, { name })
  const canon = t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t
  if (spec.kind === 'percent' && scaled(canon) > scaled('1000'))
    throw new DeskError('InvalidPolicyValue', `${name} is a percent of at most 1000`, { name })
  return canon
}

/** Exact fixed-point value of a canonical decimal string (18 decimals). */
export function scaled(value: string): bigint {
  const [i, f = ''] = value.split('.')
  return BigInt(i!) * 10n ** BigInt(SCALE) + BigInt((f + '0'.repeat(SCALE)).slice(0, SCALE))
}

/** True when moving from `from` to `to` makes the rule stricter or leaves it unchanged. */
export function isTightening(name: string, from: string | null, to: string | null): boolean {
  const spec = ruleSpec(name)
  if (spec.tighter === 'lower') {
    if (to === null) return from === null
    if (from === null) return true
    return scaled(to) <= scaled(from)
  }
  // higher is tighter (cooling-off): null or 0 is the loosest
  const a = from === null ? 0n : scaled(from)
  const b = to === null ? 0n : scaled(to)
  return b >= a
}

/** Decimal amount -> atoms at `decimals`, refusing excess precision (per-asset limits). */
export function unitsToAtoms(value: string, decimals: number, name: string): bigint {
  const [i, f = ''] = value.split('.')
  if (f.length > decimals) throw new DeskError('InvalidPolicyValue', `${name} has more decimals than the asset (${decimals})`, { name })
  return BigInt(i!) * 10n ** BigInt(decimals) + BigInt((f + '0'.repeat(decimals)).slice(0, decimals) || '0')
}

/** A rule's default when the operator never set it (null: off). */
export function defaultValue(name: string, sandbox: boolean): string | null {
  if (name === 'price-band') return DEFAULT_PRICE_BAND_PCT
  if (name === 'cooling-off') return String(sandbox ? SANDBOX_COOLING_OFF_MS : REAL_COOLING_OFF_MS)
  return null
}

/** Where a value in force comes from: set by the operator, a per-market band following the global one, or the default. */
export type ValueSource = 'set' | 'global' | 'default'

/**
 * A rule's value in force in a set of rules: the operator's value, else, for a market's band
 * (`price-band:<market>`), the global band in force (so turning a market's band off is a
 * loosening from that band, never "off -> off"), else the default.
 */
export function valueWithSource(
  rules: Readonly<Record<string, string | null>>,
  name: string,
  sandbox: boolean,
): { value: string | null; source: ValueSource } {
  if (name in rules) return { value: rules[name]!, source: 'set' }
  if (name.startsWith('price-band:')) {
    const g = valueWithSource(rules, 'price-band', sandbox)
    return { value: g.value, source: g.source === 'default' ? 'default' : 'global' }
  }
  return { value: defaultValue(name, sandbox), source: 'default' }
}
