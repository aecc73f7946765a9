import type { SettingsStore } from '../../config/settings'
import type { ConfirmationRequest } from '../../vault/signing-policy'
import type { AccountDirectory } from './account-directory'

const ADDRESS = /0x[0-9a-fA-F]{40}/g

/**
 * Every confirmation names the network it signs for and each of the operator's accounts by
 * name and address, whichever host shows it (dialog or CLI prompt).
 */
export function confirmationContext(settings: SettingsStore, accounts: AccountDirectory): (r: ConfirmationRequest) => ConfirmationRequest {
  return (r) => {
    const n = settings.selected()
    const name = (a: string) => {
      const label = accounts.label(a)
      return label ? `${label} (${a})` : a
    }
    const summary = r.summary.map((line) => line.replace(ADDRESS, (a) => name(a)))
    return { ...r, summary: [`Network: ${n.name}${n.chainId !== null && n.chainId !== undefined ? ` (chain ${n.chainId})` : ''}`, ...summary] }
  }
}
