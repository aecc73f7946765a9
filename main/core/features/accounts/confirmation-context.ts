import type { ConfirmDetails, ConfirmParty } from '../../../contract/types'
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
    const d = (r.details ?? {}) as ConfirmDetails
    const party = (p: ConfirmParty | null | undefined) => (p ? { ...p, name: p.name || accounts.label(p.address) } : p)
    const details: ConfirmDetails = {
      ...d,
      network: { name: n.name, chainId: n.chainId ?? null, kind: n.kind },
      ...(d.account ? { account: party(d.account)! } : {}),
      ...(d.counterparty ? { counterparty: party(d.counterparty) } : {}),
    }
    return {
      ...r,
      summary: [`Network: ${n.name}${n.chainId !== null && n.chainId !== undefined ? ` (chain ${n.chainId})` : ''}`, ...summary],
      details: details as Readonly<Record<string, unknown>>,
    }
  }
}
