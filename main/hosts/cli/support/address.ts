/**
 * An operator-typed 0x address, checked without loading the vault (and viem behind it): the
 * commands that take one send it lower-case, and main checks it again against the contract.
 */
import type { Address } from '../../../contract/types'
import { DeskError } from '../../../core/errors/desk-error'

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/

const isAddress = (t: string): t is Address => HEX_ADDRESS.test(t)

/** The address, lower-case; anything but 0x and 40 hex digits is InvalidAddress. */
export function addressArg(text: string): Address {
  const t = text.trim().toLowerCase()
  if (!isAddress(t)) throw new DeskError('InvalidAddress', `"${text.trim().slice(0, 60)}" is not a 20-byte 0x address`)
  return t
}
