/** Operator policy: the guardrails main enforces on every write, the address book, halt and resume. */

import type { Address } from './common.types'

/** A rule's value: a decimal string (USD, percent, asset units), a duration in ms (`cooling-off`), or null (off). */
export type PolicyValue = string | null

export interface PolicyRuleView {
  /**
   * `transfer-limit-usd`, `withdraw-daily-limit-usd`, `max-order-usd`, `price-band`, `price-band:<marketId>`,
   * `cooling-off`, `withdraw-asset-limit:<assetId>`...
   */
  name: string
  value: PolicyValue
  /** What the value means, e.g. "USD per transaction", "percent", "ms". */
  unit: string
  /** A loosening waiting for its cooling-off, if any. */
  pending: { value: PolicyValue; requestedAt: number; effectiveAt: number } | null
}

export interface AddressBookEntryView {
  label: string
  /** EIP-55 checksummed. */
  address: Address
  chainId: string
  addedAt: number
  /** Usable as a destination from this time (cooling-off). */
  usableAt: number
  usable: boolean
}

export interface PolicyEventView {
  id: number
  at: number
  kind: string
  /** Stored text: no clock times in it (a screen shows `times` in the operator's zone, with their age). */
  summary: string
  /** Times the event refers to, by name: effectiveAt, usableAt, since, haltedSince, requestedAt. */
  times?: Record<string, number>
}

export interface PolicyView {
  network: string
  /** The exchange the policy belongs to (signing chain id and service hosts) and every network name used for it. */
  exchange?: { description: string; chainId: number; trading: string; earn: string; aliases: string[] }
  /** The cooling-off in force (ms), and whether it is the sandbox's shorter default. */
  coolingOffMs: number
  sandboxDefaults: boolean
  rules: PolicyRuleView[]
  halted: { since: number } | null
  addresses: AddressBookEntryView[]
  /** Latest policy events (changes, overrides, halt/resume), newest first. */
  events: PolicyEventView[]
}

export interface HaltAccountResult {
  account: Address
  label: string
  /** True when open orders were read back and none remain. */
  verifiedZero: boolean
  cancelledMarkets: number[]
  remaining: { market: number | null; oid: string }[]
  /** Why this account could not be cancelled or verified (watch-only, locked vault, a refused batch...). */
  error: { code: string; message: string } | null
}

export interface HaltResult {
  network: string
  halted: { since: number }
  accounts: HaltAccountResult[]
}
