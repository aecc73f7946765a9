import { DeskCallError } from '../../shared/desk-call-error'
import { formatAmount, formatPercent, formatTime, formatUsdCents } from '../../../../main/contract/format'

/** The policy refusal codes main raises before anything is signed. */
export const POLICY_CODES = [
  'DestinationNotAllowed',
  'DestinationCoolingOff',
  'LimitExceeded',
  'PriceOutsideBand',
  'WritesHalted',
  'MarkUnavailable',
  'InvalidAddressChecksum',
  'BurnAddress',
  'PolicyFileCorrupt',
] as const

export interface RefusalFacts {
  code: string
  /** Labelled figures from the refusal's details ("Limit", "10 USD"), in the order an operator reads them. */
  facts: { label: string; value: string }[]
  /** For a price-band refusal: the exact phrase to type to override it for this one order. */
  confirmText: string | null
}

const isUsdRule = (rule: string) => rule.endsWith('-usd')
const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : null

/**
 * The numbers of a policy refusal, read from its details (never parsed out of the message):
 * a limit with what is already used and when room frees up, a cooling-off's end, the band.
 * Null for any other error.
 */
export function refusalFacts(e: unknown, symbolOf: (assetId: number) => string | undefined = () => undefined): RefusalFacts | null {
  if (!(e instanceof DeskCallError)) return null
  const d = e.details ?? {}
  const code = e.code
  const facts: { label: string; value: string }[] = []
  if (code === 'LimitExceeded') {
    const rule = String(d.rule ?? '')
    // A per-asset limit (`…-asset-limit:<assetId>`) is in that asset's units, shown with its symbol.
    const assetId = /:([0-9]+)$/.exec(rule)?.[1]
    const symbol = assetId === undefined ? undefined : (symbolOf(Number(assetId)) ?? `(asset ${assetId})`)
    const money = (v: unknown) =>
      v === null || v === undefined ? '—' : isUsdRule(rule) ? formatUsdCents(String(v)) : formatAmount(String(v), { symbol: symbol ?? '' })
    facts.push({ label: 'Rule', value: rule })
    facts.push({ label: 'Limit', value: money(d.limit) })
    if (rule.includes('daily')) facts.push({ label: 'Already used (last 24 h)', value: money(d.used) })
    facts.push({ label: 'This amount', value: money(d.amount) })
    if (rule.includes('daily')) {
      const at = num(d.freesAt)
      facts.push({
        label: 'Room frees up at',
        value: at === null ? 'never for this amount: it alone is over the limit' : formatTime(at, { zone: true }),
      })
    }
  } else if (code === 'DestinationCoolingOff') {
    if (d.label) facts.push({ label: 'Address-book entry', value: String(d.label) })
    facts.push({ label: 'Usable at', value: formatTime(num(d.usableAt), { zone: true }) })
  } else if (code === 'DestinationNotAllowed') {
    if (d.address) facts.push({ label: 'Destination', value: `${String(d.address)}${d.chainId ? ` on chain ${String(d.chainId)}` : ''}` })
    facts.push({ label: 'Allowed', value: 'your own accounts and address-book entries past their cooling-off' })
  } else if (code === 'PriceOutsideBand') {
    if (d.band !== undefined) facts.push({ label: 'Band', value: formatPercent(String(d.band)) })
    facts.push({
      label: 'Reference',
      value:
        d.reference === null || d.reference === undefined
          ? 'none known'
          : `${String(d.reference)}${d.referenceSource ? ` (${String(d.referenceSource)})` : ''}`,
    })
  } else if (code === 'WritesHalted') {
    facts.push({ label: 'Halted since', value: formatTime(num(d.since), { zone: true }) })
  } else if (!(POLICY_CODES as readonly string[]).includes(code)) {
    return null
  }
  return { code, facts, confirmText: code === 'PriceOutsideBand' && typeof d.confirmText === 'string' ? d.confirmText : null }
}

/** A preview warning that says the policy would refuse the write ("Refused by policy (Code): …"). */
export const POLICY_WARNING = /^Refused by policy \(([A-Za-z]+)\)/
/** The preview's own balance warning (main: "<account> has insufficient …"). */
const BALANCE_WARNING = /will refuse|insufficient/i

/** Why a preview cannot be signed: the first refusing warning, or null when it may be signed. */
export function blockingWarning(warnings: readonly string[]): string | null {
  return warnings.find((w) => POLICY_WARNING.test(w) || BALANCE_WARNING.test(w)) ?? null
}
