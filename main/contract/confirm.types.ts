/** The confirmation gate: what main asks the operator before an owner-key action is signed. */

import type { Address, Decimal } from './common.types'
import type { NetworkKind } from './networks.types'

/** Pushed by main when an owner-key action needs the operator's confirmation. */
export interface ConfirmRequest {
  id: string
  title: string
  summary: string[]
  needsPassphrase: boolean
  expiresAt: number
  /** Whose call triggered the signature: the app's window, or a `desk` command (the window shows only 'app'). */
  origin: 'app' | 'cli'
  /** The attached `desk` connection that asked (opaque id), so only that client answers; absent for 'app'. */
  client?: string
  /** Structured facts for the dialog (main fills them where it knows them; `summary` stays the full text). */
  details?: ConfirmDetails
}

/** A named party of a confirmation: the operator's name for it ('' when none) and its address. */
export interface ConfirmParty {
  name: string
  address: Address
}

/** What a confirmation dialog shows as separate fields; every one optional so main can fill them step by step. */
export interface ConfirmDetails {
  network?: { name: string; chainId: number | null; kind: NetworkKind }
  /** The account that signs (or whose agent signs). */
  account?: ConfirmParty
  /** The other side: the recipient, destination address-book entry or credit/cash account; null when none. */
  counterparty?: (ConfirmParty & { chainId?: string }) | null
  /** The amount moved in units, and its USD value at the mark (null when no fresh mark). */
  amount?: { units: Decimal; symbol: string; usd: Decimal | null }
  /** Each fee in units (e.g. the activation fee, a withdrawal fee); empty when none. */
  fees?: { label: string; units: Decimal; symbol: string; usd: Decimal | null }[]
  /** The policy checks this write passed, as sentences ("destination cold on chain 1: in the address book, usable since …"). */
  policyChecks?: string[]
  /** The action body exactly as it will be signed (shown on "Show exact action"). */
  action?: Record<string, unknown>
  /** The key that signs: the owner's main key, or an API (agent) key in a slot of that owner. */
  signer?: ConfirmSigner
}

/** A signing key named for the operator: whose it is and which one. */
export interface ConfirmSigner {
  role: 'owner' | 'agent'
  /** The agent slot (0 to 3) when an agent key signs. */
  slot?: number
  /** The operator's name for the key ("Treasury A", "API key slot 1 of Treasury A"); '' when none. */
  label: string
  /** The address the service recovers from the signature. */
  address: Address
  /** The owner account the key acts for. */
  owner: Address
}
