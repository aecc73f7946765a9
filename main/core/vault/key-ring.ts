/**
 * The decrypted keys of an unlocked vault: opening every record of a document under the master
 * key, proving each key by a test signature, finding the key a SignerRef names, and zeroing.
 */
import { randomBytes } from 'node:crypto'
import { bytesToHex, recoverAddress, type Address } from 'viem'
import { sign } from 'viem/accounts'
import { vaultError } from './errors'
import { fileMac, macEquals, openRecord, type SealedRecord } from './record-cipher'
import { isAgentSlot, type SignerRef } from './types'
import { VERIFIER_PLAINTEXT, aad, canonicalBody, type OwnerRecord, type VaultDoc } from './vault-file'

/** Decrypted keys by lowercase address. */
export type KeyRing = Map<string, Uint8Array>

export const lc = (a: string) => a.toLowerCase()

export function zeroKeys(keys: Iterable<Uint8Array>): void {
  for (const k of keys) k.fill(0)
}

/** True when `master` opens the document's verifier record, i.e. the passphrase was right. */
export function verifierOpens(doc: Pick<VaultDoc, 'verifier'>, master: Buffer): boolean {
  const verifier = openRecord(master, doc.verifier, aad.verifier())
  return verifier !== null && verifier.toString() === VERIFIER_PLAINTEXT
}

/** Checks the verifier and file MAC, then decrypts every key record. */
export function decryptKeyRing(doc: VaultDoc, master: Buffer, path: string): KeyRing {
  if (!verifierOpens(doc, master)) throw vaultError('PassphraseIncorrect', 'wrong vault passphrase')
  if (!macEquals(fileMac(master, canonicalBody(doc)), doc.mac)) {
    // The checksum matched (or the file predates it), so this is an edit, not accidental damage.
    throw vaultError('VaultCorrupt', `the vault file ${path} was altered (integrity check failed)`, { path, damage: 'mac' })
  }
  const keys: KeyRing = new Map()
  const take = (record: SealedRecord, recordAad: string, address: Address) => {
    const plain = openRecord(master, record, recordAad)
    if (!plain || plain.length !== 32) {
      plain?.fill(0)
      throw vaultError('VaultCorrupt', `the key record of ${address} in ${path} is damaged`, { path, address, damage: 'record' })
    }
    const key = new Uint8Array(plain)
    plain.fill(0)
    // That the key belongs to `address` is proven by the self-test that follows every decryption.
    keys.set(lc(address), key)
  }
  try {
    for (const o of doc.owners) {
      if (o.key) take(o.key, aad.owner(o.address), o.address)
      for (const g of o.agents) take(g.key, aad.agent(o.address, g.slot, g.address), g.address)
    }
    // The operator identity key (team mode): self-tested and zeroed with the others; no SignerRef names it.
    const id = doc.team?.identity
    if (id) take(id.key, aad.identity(id.address), id.address)
  } catch (e) {
    zeroKeys(keys.values())
    throw e
  }
  return keys
}

/** Signs random bytes with each key and checks the signature recovers to its address. */
export async function selfTestKeys(keys: KeyRing): Promise<void> {
  for (const [address, key] of keys) {
    // Curve arithmetic is synchronous: yield between keys so a large vault never stalls the loop.
    await new Promise((resolve) => setImmediate(resolve))
    const hash = bytesToHex(randomBytes(32))
    const signature = await sign({ hash, privateKey: bytesToHex(key), to: 'hex' })
    const recovered = await recoverAddress({ hash, signature })
    if (lc(recovered) !== address) {
      throw vaultError('VaultSelfTestFailed', `self-test failed for ${address}: a test signature did not recover to it`, { address })
    }
  }
}

export function findOwner(doc: Pick<VaultDoc, 'owners'>, address: string): OwnerRecord | undefined {
  return doc.owners.find((o) => lc(o.address) === lc(address))
}

/** The key `ref` names; `keys` is null while the vault is locked. */
export function signingKey(doc: VaultDoc, keys: KeyRing | null, ref: SignerRef): Uint8Array {
  if (!keys) throw vaultError('VaultLocked', 'the vault is locked; unlock it to sign')
  const owner = findOwner(doc, ref.owner)
  if (!owner) throw vaultError('AccountNotInVault', `${ref.owner} is not an account in the vault`, { owner: ref.owner })
  let address: Address
  if (ref.role === 'owner') {
    if (!owner.key) {
      throw vaultError('WatchOnlyAccount', `${owner.address} (${owner.label}) is watch-only: the vault has no key to sign with`, {
        owner: owner.address,
      })
    }
    address = owner.address
  } else if (ref.role === 'agent') {
    if (!isAgentSlot(ref.slot)) throw vaultError('InvalidAgentSlot', 'agent slot must be 0, 1, 2 or 3')
    const agent = owner.agents.find((g) => g.slot === ref.slot)
    if (!agent) {
      throw vaultError('AgentKeyNotFound', `no agent key in slot ${ref.slot} of ${owner.address}`, { owner: owner.address, slot: ref.slot })
    }
    address = agent.address
  } else {
    throw vaultError('AccountNotInVault', 'unknown signer role')
  }
  const key = keys.get(lc(address))
  if (!key) throw vaultError('VaultCorrupt', `the key of ${address} is missing from the unlocked vault`)
  return key
}
