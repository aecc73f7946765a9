/**
 * Edits to the vault document: the accounts, their keys and labels. Each edit is a pure step on a
 * copy of the document and says which decrypted keys the unlocked vault gains or drops; the vault
 * applies it only once the new file is safely written.
 */
import type { Address } from 'viem'
import { vaultError } from './errors'
import type { ScryptParams } from './kdf'
import { lc, type KeyRing } from './key-ring'
import { addressOfKey, generatePrivateKey } from './private-key'
import { sealRecord, type SealedRecord } from './record-cipher'
import type { AgentSlot } from './types'
import { VAULT_FORMAT, VAULT_VERSION, VERIFIER_PLAINTEXT, aad, type OwnerRecord, type VaultDoc } from './vault-file'
import { shortAddress } from '../../contract/format'

/** The document without its MAC, which is computed when the edit is written. */
export type VaultBody = Omit<VaultDoc, 'mac'>

export interface DocChange<T> {
  doc: VaultBody
  value: T
  addKeys?: KeyRing
  dropKeys?: string[]
  newMaster?: Buffer
}

const nowIso = (now: () => number) => new Date(now()).toISOString()

export function cleanLabel(label: string | undefined, fallback: string): string {
  const l = (label ?? '').trim()
  if (l.length > 64) throw vaultError('InvalidLabel', 'a label has at most 64 characters')
  if (/\p{Cc}/u.test(l)) throw vaultError('InvalidLabel', 'a label cannot contain control characters')
  return l === '' ? fallback : l
}

function requireOwner(doc: VaultBody, address: string): OwnerRecord {
  const owner = doc.owners.find((o) => lc(o.address) === lc(address))
  if (!owner) throw vaultError('AccountNotInVault', `${address} is not an account in the vault`)
  return owner
}

/** An address may appear once in the vault; a watch-only owner may gain its key. */
function assertAddressFree(doc: VaultBody, address: Address, allowWatchOnlyOwner: boolean): OwnerRecord | undefined {
  for (const o of doc.owners) {
    for (const g of o.agents) {
      if (lc(g.address) === lc(address)) {
        throw vaultError('KeyInUse', `${address} is already agent key ${g.slot} of ${o.address}`, { address })
      }
    }
  }
  const owner = doc.owners.find((o) => lc(o.address) === lc(address))
  if (owner && (owner.key !== null || !allowWatchOnlyOwner)) {
    throw vaultError('AccountExists', `${address} is already in the vault`, { address })
  }
  return owner
}

/** The body of a new, empty vault under `master`. */
export function newVaultBody(master: Buffer, salt: Buffer, params: ScryptParams): VaultBody {
  return {
    format: VAULT_FORMAT,
    version: VAULT_VERSION,
    kdf: { name: 'scrypt', n: params.n, r: params.r, p: params.p, salt: salt.toString('hex') },
    cipher: 'aes-256-gcm',
    verifier: sealRecord(master, Buffer.from(VERIFIER_PLAINTEXT), aad.verifier()),
    owners: [],
    retiredAgents: [],
  }
}

/** Adds an owner key, or gives a watch-only account its key. `key` is zeroed when refused. */
export function putOwnerKey(
  doc: VaultBody,
  master: Buffer,
  key: Uint8Array,
  label: string | undefined,
  now: () => number,
): DocChange<Address> {
  const address = addressOfKey(key)
  let owner: OwnerRecord | undefined
  try {
    owner = assertAddressFree(doc, address, true)
  } catch (e) {
    key.fill(0)
    throw e
  }
  const sealed = sealRecord(master, key, aad.owner(address))
  if (owner) {
    owner.key = sealed
    if (label !== undefined && label.trim() !== '') owner.label = cleanLabel(label, owner.label)
  } else {
    doc.owners.push({ address, label: cleanLabel(label, shortAddress(address)), createdAt: nowIso(now), key: sealed, agents: [] })
  }
  return { doc, value: address, addKeys: new Map([[lc(address), key]]) }
}

export function addWatchOnlyOwner(doc: VaultBody, address: Address, label: string | undefined, now: () => number): DocChange<Address> {
  assertAddressFree(doc, address, false)
  doc.owners.push({ address, label: cleanLabel(label, shortAddress(address)), createdAt: nowIso(now), key: null, agents: [] })
  return { doc, value: address }
}

export function relabelOwner(doc: VaultBody, address: Address, label: string): DocChange<void> {
  const owner = requireOwner(doc, address)
  owner.label = cleanLabel(label, shortAddress(owner.address))
  return { doc, value: undefined }
}

/** Drops an owner with its keys; its agent addresses are kept as retired. */
export function removeOwner(doc: VaultBody, address: Address, now: () => number): DocChange<void> {
  const owner = requireOwner(doc, address)
  doc.owners = doc.owners.filter((o) => o !== owner)
  const at = nowIso(now)
  for (const g of owner.agents) doc.retiredAgents.push({ owner: owner.address, slot: g.slot, address: g.address, retiredAt: at })
  return { doc, value: undefined, dropKeys: [lc(owner.address), ...owner.agents.map((g) => lc(g.address))] }
}

/** The owner key leaves the vault (its account is now held by the team's shares): the record stays, keyless. */
export function dropOwnerKey(doc: VaultBody, address: Address): DocChange<void> {
  const owner = requireOwner(doc, address)
  if (!owner.key) throw vaultError('WatchOnlyAccount', `${owner.address} has no key in the vault`)
  owner.key = null
  return { doc, value: undefined, dropKeys: [lc(owner.address)] }
}

/** A fresh agent key in (owner, slot); `replace` retires the key already there in the same edit. */
export function putNewAgentKey(
  doc: VaultBody,
  master: Buffer,
  owner: Address,
  slot: AgentSlot,
  replace: boolean | undefined,
  now: () => number,
): DocChange<Address> {
  const o = requireOwner(doc, owner)
  const existing = o.agents.find((g) => g.slot === slot)
  if (existing && !replace) {
    throw vaultError('AgentSlotOccupied', `slot ${slot} of ${o.address} already holds agent ${existing.address}; retire it first`, { slot })
  }
  const key = generatePrivateKey()
  const address = addressOfKey(key)
  try {
    assertAddressFree(doc, address, false)
  } catch (e) {
    key.fill(0)
    throw e
  }
  const at = nowIso(now)
  if (existing) {
    o.agents = o.agents.filter((g) => g !== existing)
    doc.retiredAgents.push({ owner: o.address, slot, address: existing.address, retiredAt: at })
  }
  o.agents.push({ slot, address, createdAt: at, key: sealRecord(master, key, aad.agent(o.address, slot, address)) })
  return { doc, value: address, addKeys: new Map([[lc(address), key]]), dropKeys: existing ? [lc(existing.address)] : [] }
}

export function retireAgent(doc: VaultBody, owner: Address, slot: AgentSlot, now: () => number): DocChange<Address> {
  const o = requireOwner(doc, owner)
  const existing = o.agents.find((g) => g.slot === slot)
  if (!existing) throw vaultError('AgentKeyNotFound', `no agent key in slot ${slot} of ${o.address}`, { slot })
  o.agents = o.agents.filter((g) => g !== existing)
  doc.retiredAgents.push({ owner: o.address, slot, address: existing.address, retiredAt: nowIso(now) })
  return { doc, value: existing.address, dropKeys: [lc(existing.address)] }
}

/** Re-encrypts the verifier and every key record under `newMaster` (a passphrase change). */
export function resealAll(doc: VaultBody, keys: KeyRing, newMaster: Buffer, salt: Buffer, params: ScryptParams): DocChange<void> {
  const reseal = (address: Address, recordAad: string): SealedRecord => {
    const key = keys.get(lc(address))
    if (!key) throw vaultError('VaultCorrupt', `the key of ${address} is missing from the unlocked vault`)
    return sealRecord(newMaster, key, recordAad)
  }
  doc.kdf = { name: 'scrypt', ...params, salt: salt.toString('hex') }
  doc.verifier = sealRecord(newMaster, Buffer.from(VERIFIER_PLAINTEXT), aad.verifier())
  for (const o of doc.owners) {
    if (o.key) o.key = reseal(o.address, aad.owner(o.address))
    for (const g of o.agents) g.key = reseal(g.address, aad.agent(o.address, g.slot, g.address))
  }
  return { doc, value: undefined, newMaster }
}
