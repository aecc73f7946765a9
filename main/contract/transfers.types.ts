/** Transfers, settles, repays, withdrawals and activations: what a write will sign, previewed. */

import type { Address, Decimal } from './common.types'

/** What will be signed, shown to the operator before confirmation. */
export interface PreviewView {
  title: string
  /** Human-readable lines: network, signer, action, exact amounts. */
  summary: string[]
  /** The action body exactly as it will be signed (JSON with decimal strings). */
  action: Record<string, unknown>
  /** Predicted balances after the action, per side. */
  effects: { account: Address; label: string; assetSymbol: string; before: Decimal; after: Decimal }[]
  warnings: string[]
  /** how old the oldest account data behind this preview is (ms) */
  dataAgeMs?: number | null
  /** the limit above which the desk refuses to sign on it (ms) */
  dataMaxAgeMs?: number
}
