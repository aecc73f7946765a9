import type { TeamRuleView } from '../../../../main/contract/types'
import { formatUsd } from '../../../../main/contract/format'

/** The account a guardrail settings proposal names (address book, limits, resume): none, desk-wide. */
export const DESK_WIDE_ACCOUNT = `0x${'00'.repeat(20)}`
/** A proposal's account as shown: a settings change is desk-wide, not an account's. */
export const accountShown = (a: string, labelOf: (a: string) => string | null): string | null =>
  a === DESK_WIDE_ACCOUNT ? 'desk-wide settings' : labelOf(a)

/** Action kinds in words, for rules and proposals ("agent_rotate" → "agent rotate"). */
export const kindText = (k: string): string => k.replace(/_/g, ' ')

/**
 * What a team policy rule matches, in words; `labelOf` names accounts and destinations.
 * Every condition listed must hold (the USD ones are "at least").
 */
export function ruleMatches(r: TeamRuleView, labelOf: (address: string) => string): string {
  const parts: string[] = []
  parts.push(r.kinds?.length ? r.kinds.map(kindText).join(', ') : 'any action')
  const on = [...(r.accounts ?? []).map(labelOf), ...(r.groups ?? []).map((g) => `group ${g}`)]
  if (on.length) parts.push(`on ${on.join(', ')}`)
  if (r.minUsd !== undefined) parts.push(`worth ${formatUsd(r.minUsd)} or more`)
  if (r.minWindowUsd !== undefined) parts.push(`${formatUsd(r.minWindowUsd)} or more over the window`)
  if (r.destinations?.length) parts.push(`to ${r.destinations.map(labelOf).join(', ')}`)
  if (r.direction) parts.push(r.direction === 'loosen' ? 'when loosening' : 'when tightening')
  return parts.join(' ')
}

/** What a rule does when it matches. */
export function ruleEffect(r: TeamRuleView): string {
  const t = r.then
  if (t.effect === 'allow') return 'allow'
  if (t.effect === 'block') return 'block'
  return `needs ${t.count} approval${t.count === 1 ? '' : 's'} from ${t.roles.join(' or ')}`
}

/** The proposal's status in words. */
export const STATUS_TEXT: Record<string, string> = {
  open: 'waiting for approvals',
  approved: 'approved, not executed yet',
  rejected: 'rejected',
  expired: 'expired',
  signed: 'signed, outcome pending',
  final: 'done',
}
