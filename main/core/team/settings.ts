/**
 * Guardrail settings changes under the team policy (issue 23 item 3): address-book entries, limits
 * and resume after a halt. They are local settings of one desk, not exchange writes, so they never
 * pass the write pipeline; the team gate judges them here by the same first-matching rule. A change
 * the policy gates becomes a proposal like a write: its `action` is the exact change (canonical,
 * naming the desk it is for), its `cloid` a stable key derived from it, its account the zero address
 * (desk-wide: a rule listing accounts never matches a settings change).
 *
 * The halt is deliberately not here: an emergency halt stays immediate on every desk, whatever the
 * policy says (a second person must never be needed to stop trading); only resume is gated.
 */
import { keccak256, toHex } from 'viem'
import { canonicalJson, type Canonical } from './canonical'
import { DIRECTIONS, type ActionKind, type Direction } from './policy'

export const SETTINGS_KINDS = ['address_book', 'limits', 'resume'] as const satisfies readonly ActionKind[]
export type SettingsKind = (typeof SETTINGS_KINDS)[number]
export const isSettingsKind = (k: string): k is SettingsKind => (SETTINGS_KINDS as readonly string[]).includes(k)

/** The account a settings proposal names: none (desk-wide). */
export const DESK_WIDE_ACCOUNT = `0x${'00'.repeat(20)}`
/** Prefix of a settings proposal's key in the `cloid` field: never an exchange cloid (those are 0x-hex). */
export const SETTINGS_KEY_PREFIX = 'settings:'

export type SettingsChange =
  | { op: 'address.add'; label: string; address: string; chainId: string }
  | { op: 'address.remove'; label: string }
  /** `direction`: tighten or loosen against the value in force on the proposing desk (core/policy isTightening) */
  | { op: 'limit.set'; name: string; value: string | null; direction?: Direction }
  | { op: 'resume' }

export function settingsKind(c: SettingsChange): SettingsKind {
  return c.op === 'resume' ? 'resume' : c.op === 'limit.set' ? 'limits' : 'address_book'
}

/** The proposal's exact action: the change and the desk whose settings it changes. */
export function settingsAction(c: SettingsChange, desk: string): { [key: string]: Canonical } {
  return JSON.parse(canonicalJson({ ...c, desk })) as { [key: string]: Canonical }
}

/** The change a settings proposal's action carries (null: not one). */
export function settingsChangeOf(action: { [key: string]: Canonical }): (SettingsChange & { desk: string }) | null {
  const a = action as Record<string, unknown>
  const s = (k: string) => typeof a[k] === 'string'
  if (!s('desk')) return null
  if (a.op === 'address.add' && s('label') && s('address') && s('chainId')) return a as never
  if (a.op === 'address.remove' && s('label')) return a as never
  if (
    a.op === 'limit.set' &&
    s('name') &&
    (a.value === null || s('value')) &&
    (a.direction === undefined || DIRECTIONS.includes(a.direction as Direction))
  )
    return a as never
  if (a.op === 'resume') return a as never
  return null
}

/**
 * The direction a team policy rule matches a change on: adding an address-book entry (or pointing a
 * label elsewhere) loosens, removing one tightens; a limit change carries its own, judged by the
 * proposing desk against the value in force there (removing a limit loosens, adding one tightens).
 * Resume has none, nor a limit change recorded without one.
 */
export function settingsDirection(c: SettingsChange): Direction | undefined {
  switch (c.op) {
    case 'address.add':
      return 'loosen'
    case 'address.remove':
      return 'tighten'
    case 'limit.set':
      return c.direction
    case 'resume':
      return undefined
  }
}

/**
 * The stable key of the n-th proposal of this exact change on this network and exchange (n counts
 * the earlier ones in the verified chain): every desk derives the same key from the same change, and
 * two desks proposing it at once collide on it (a cloid is proposed once) instead of making two.
 */
export function settingsKey(network: string, exchange: string, action: { [key: string]: Canonical }, n: number): string {
  const h = keccak256(toHex(canonicalJson({ network, exchange, action })))
  return `${SETTINGS_KEY_PREFIX}${h.slice(0, 34)}:${n}`
}

/** The key without its counter: what identifies the change itself. */
export const settingsKeyBase = (key: string) => key.slice(0, key.lastIndexOf(':'))

/** A readable line for the approvals queue. */
export function settingsTitle(c: SettingsChange): string {
  switch (c.op) {
    case 'address.add':
      return `Address book: add "${c.label}" ${c.address} on chain ${c.chainId}`
    case 'address.remove':
      return `Address book: remove "${c.label}"`
    case 'limit.set':
      return `Limit ${c.name}: set to ${c.value === null ? 'off' : c.value}${c.direction ? ` (${c.direction === 'loosen' ? 'loosening' : 'tightening'})` : ''}`
    case 'resume':
      return 'Resume writes after the halt'
  }
}
