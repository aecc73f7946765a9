/**
 * An operator-typed 0x address, checked without loading viem: the commands that take one send it
 * lower-case, and main checks it again against the contract. The keys commands show and send it
 * checksummed (EIP-55, as the vault lists it), with viem loaded only then.
 */
import type { Address } from '../../../contract/types'
import { DeskError } from '../../../contract/errors'

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/

const isAddress = (t: string): t is Address => HEX_ADDRESS.test(t)

/** The address, lower-case; anything but 0x and 40 hex digits is InvalidAddress. */
export function addressArg(text: string): Address {
  const t = text.trim().toLowerCase()
  if (!isAddress(t)) throw new DeskError('InvalidAddress', `"${text.trim().slice(0, 60)}" is not a 20-byte 0x address`)
  return t
}

/** The address checksummed (EIP-55, as the vault lists it); InvalidAddress as `addressArg`. viem loads only here. */
export async function checksummedArg(text: string): Promise<Address> {
  const address = addressArg(text)
  const { getAddress } = await import('viem')
  return getAddress(address)
}
