import type { Address } from 'viem'
import { formatDurationWords } from '../../contract/format'
import { DeskError } from '../errors/desk-error'
import { checkDestination } from './destination'
import type { AddressView, Authority, PolicyChanges } from './engine-types'
import type { AddressEntry, PolicyDoc } from './policy-file'

/** An address-book entry as the operator sees it, usable or not at `t`. */
export function addressView(a: AddressEntry, t: number): AddressView {
  return {
    label: a.label,
    address: a.address as Address,
    chainId: a.chainId,
    addedAt: a.addedAt,
    usableAt: a.usableAt,
    usable: a.usableAt <= t,
  }
}

/** An address-book entry as it would be stored (label trimmed, address checksummed), or a typed refusal. */
export function addressInput(req: { label: string; address: string; chainId: string }): {
  label: string
  address: string
  chainId: string
} {
  const label = req.label.trim()
  if (!label || label.length > 64) throw new DeskError('InvalidLabel', 'an address-book label is 1 to 64 characters')
  const address = checkDestination(req.address, 'address')
  if (!/^(0|[1-9][0-9]{0,19})$/.test(req.chainId)) throw new DeskError('InvalidChainId', 'destination chain id must be a decimal integer')
  return { label, address, chainId: req.chainId }
}

/** Adds (or edits, by label) an address-book entry; usable after the cooling-off. */
export async function addAddress(
  ctx: PolicyChanges,
  req: { label: string; address: string; chainId: string; passphrase: Authority },
): Promise<AddressView> {
  const { label, address } = addressInput(req)
  const doc = ctx.doc()
  await ctx.requirePassphrase(req.passphrase, 'changing the address book')
  const t = ctx.now()
  const old = doc.addresses.find((a) => a.label.toLowerCase() === label.toLowerCase())
  const same = old && old.address === address && old.chainId === req.chainId
  const entry: AddressEntry = same
    ? { ...old, label }
    : { label, address, chainId: req.chainId, addedAt: t, usableAt: t + ctx.coolingOffIn(doc) }
  const next: PolicyDoc = { ...doc, addresses: [...doc.addresses.filter((a) => a !== old), entry] }
  ctx.save(next)
  const wait = entry.usableAt - t
  ctx.log(
    old ? 'address.edit' : 'address.add',
    `${old ? 'edited' : 'added'} "${label}": ${address} on chain ${req.chainId}, ` +
      `${wait > 0 ? `usable after the ${formatDurationWords(wait)} cooling-off` : 'usable now'}`,
    {
      label,
      address,
      chainId: req.chainId,
      usableAt: entry.usableAt,
      times: { usableAt: entry.usableAt },
      ...(old ? { previous: { address: old.address, chainId: old.chainId } } : {}),
    },
  )
  return addressView(entry, t)
}

/** Removes the address-book entry of this label (passphrase needed). */
export async function removeAddress(ctx: PolicyChanges, req: { label: string; passphrase: Authority }): Promise<{ removed: string }> {
  const doc = ctx.doc()
  const old = doc.addresses.find((a) => a.label.toLowerCase() === req.label.trim().toLowerCase())
  if (!old) throw new DeskError('AddressNotListed', `no address-book entry is labelled "${req.label.slice(0, 64)}"`)
  await ctx.requirePassphrase(req.passphrase, 'changing the address book')
  ctx.save({ ...doc, addresses: doc.addresses.filter((a) => a !== old) })
  ctx.log('address.remove', `removed "${old.label}": ${old.address} on chain ${old.chainId}`, {
    label: old.label,
    address: old.address,
    chainId: old.chainId,
  })
  return { removed: old.label }
}
