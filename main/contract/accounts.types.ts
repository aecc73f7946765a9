/** The accounts feature's views. */

import type { Address } from './common.types'

export type AccountKind = 'balance' | 'credit' | 'unknown'

export interface AccountView {
  address: Address
  label: string
  group: string
  /** owner key present in the vault (false: watch-only). */
  hasKey: boolean
  kind: AccountKind
  status: 'active' | 'frozen' | 'none' | 'unknown'
  accountIndex: string | null
}
