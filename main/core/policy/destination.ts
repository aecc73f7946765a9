import { getAddress, isAddress, type Address } from 'viem'
import { DeskError } from '../errors/desk-error'

/**
 * Addresses funds must never be sent to: the zero address, the precompiles (0x…01-0x…09, nobody
 * holds their keys) and the conventional burn addresses.
 */
const BURN = new Set<string>([
  '0x0000000000000000000000000000000000000000',
  ...Array.from({ length: 9 }, (_, i) => `0x${'0'.repeat(39)}${i + 1}`),
  '0x000000000000000000000000000000000000dead',
  '0xdead000000000000000000000000000000000000',
  '0xdead000000000000000042069420694206942069',
  '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
  '0xffffffffffffffffffffffffffffffffffffffff',
])

/**
 * A destination typed by the operator: 20-byte hex; when it is mixed-case the EIP-55 checksum
 * must match (a mistyped character is caught); never a burn address. Returns the checksummed form.
 */
export function checkDestination(value: string, field = 'address'): Address {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value))
    throw new DeskError('InvalidAddress', `${field} must be a 20-byte 0x address`, { field })
  const hex = value.slice(2)
  const mixed = hex !== hex.toLowerCase() && hex !== hex.toUpperCase()
  if (mixed && !isAddress(value, { strict: true })) {
    throw new DeskError(
      'InvalidAddressChecksum',
      `${field} ${value} has a wrong EIP-55 checksum: a character is probably mistyped. Copy the address again from its source.`,
      { field },
    )
  }
  if (BURN.has(value.toLowerCase()))
    throw new DeskError('BurnAddress', `${field} ${value} is a zero or burn address: funds sent there are lost`, { field })
  return getAddress(value)
}
