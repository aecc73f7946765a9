import type { Address } from 'viem'
import type { Journal } from '../journal'
import type { PolicyNetwork } from './exchange'
import type { MoveKind } from './limits'
import type { PolicyDoc } from './policy-file'
import type { UsageEntry } from './usage'

/** The journal key of desk-wide policy events (the halt, network changes): no network can be named so. */
export const DESK_EVENTS = '(desk)'

/**
 * Stands in for the passphrase when a team-approved settings change is applied on the desk that
 * proposed it (its initiator gave the passphrase when proposing; the approvals are in the team
 * chain). A symbol cannot cross IPC, so no host can pass it.
 */
export const TEAM_APPROVED: unique symbol = Symbol('team-approved')
/** Who allows a change: the vault passphrase, or the team's approval. */
export type Authority = string | typeof TEAM_APPROVED

export interface PolicyEngineOptions {
  dataDir: string
  network: PolicyNetwork
  journal: Journal
  now: () => number
  /** True when the passphrase opens the vault (one scrypt); never stored or logged here. */
  verifyPassphrase(passphrase: string): Promise<boolean>
  /** Journaled value moves since a time (default: read from the journal's signed bodies). */
  usage?: (kind: MoveKind, since: number) => UsageEntry[]
}

export interface RuleState {
  name: string
  value: string | null
  unit: string
  pending: { value: string | null; requestedAt: number; effectiveAt: number } | null
}

export interface AddressView {
  label: string
  address: Address
  chainId: string
  addedAt: number
  usableAt: number
  usable: boolean
}

export interface PolicyState {
  network: string
  /** The exchange the policy belongs to, and every network name it is used under. */
  exchange: { description: string; chainId: number; trading: string; earn: string; aliases: string[] }
  coolingOffMs: number
  sandboxDefaults: boolean
  rules: RuleState[]
  halted: { since: number } | null
  addresses: AddressView[]
}

/** What the rule and address-book changes use of the policy engine. */
export interface PolicyChanges {
  /** The policy document in force now. */
  doc(): PolicyDoc
  save(doc: PolicyDoc): void
  now(): number
  coolingOffIn(doc: PolicyDoc): number
  /** Whether the sandbox's defaults apply to this exchange. */
  sandboxIn(doc: PolicyDoc): boolean
  requirePassphrase(passphrase: Authority | undefined, what: string): Promise<void>
  /** Journals a policy event of this network. */
  log(kind: string, summary: string, detail: unknown): void
}
