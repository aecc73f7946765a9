import { DeskError } from '../errors/desk-error'
import { checkDestination } from './destination'
import { at } from './limits'
import type { AddressEntry } from './policy-file'

/** The address book as a check sees it (read only once the destination is valid): its entries, the time, how a cooling-off reads. */
export interface AddressBookView {
  entries: readonly AddressEntry[]
  now(): number
  coolingOffNote(ms: number): string
}

function destinationUsable(book: AddressBookView, e: AddressEntry, what: string): void {
  const t = book.now()
  if (e.usableAt > t) {
    throw new DeskError(
      'DestinationCoolingOff',
      `"${e.label}" (${e.address}) was added to the address book at ${at(e.addedAt)} and is usable from ${at(e.usableAt)} (cooling-off ` +
        `${book.coolingOffNote(e.usableAt - e.addedAt)}): ${what} refused`,
      { code: 'DestinationCoolingOff', label: e.label, usableAt: e.usableAt },
    )
  }
}

/** A withdrawal goes only to an address-book entry for its chain, past its cooling-off. */
export function requireWithdrawDestination(book: () => AddressBookView, address: string, chainId: string): void {
  const a = checkDestination(address, 'destination address')
  const b = book()
  const entries = b.entries.filter((e) => e.address.toLowerCase() === a.toLowerCase())
  const e = entries.find((x) => x.chainId === chainId)
  if (!e) {
    const other = entries.length > 0 ? ` (it is listed for chain ${entries.map((x) => x.chainId).join(', ')}, not ${chainId})` : ''
    throw new DeskError(
      'DestinationNotAllowed',
      `${a} on chain ${chainId} is not in the address book${other}: withdrawals go only to address-book entries. Add it (passphrase) and wait for ` +
        `its cooling-off.`,
      {
        code: 'DestinationNotAllowed',
        address: a,
        chainId,
      },
    )
  }
  destinationUsable(b, e, 'the withdrawal')
}

/** A transfer goes only to the operator's own accounts or an address-book entry (any chain) past its cooling-off. */
export function requireTransferDestination(book: () => AddressBookView, to: string, ownAccounts: readonly string[]): void {
  const a = checkDestination(to, 'recipient')
  if (ownAccounts.some((x) => x.toLowerCase() === a.toLowerCase())) return
  const b = book()
  const e = b.entries.find((x) => x.address.toLowerCase() === a.toLowerCase())
  if (!e) {
    throw new DeskError(
      'DestinationNotAllowed',
      `${a} is neither one of your accounts nor in the address book: transfers go only there. Add it (passphrase) and wait for its cooling-off.`,
      {
        code: 'DestinationNotAllowed',
        address: a,
      },
    )
  }
  destinationUsable(b, e, 'the transfer')
}
