/**
 * The vault: every private key of every account, encrypted at rest under one operator
 * passphrase, decrypted only in this module's memory while unlocked. Nothing here returns a key;
 * callers name keys with a SignerRef and get signatures back.
 *
 * This class is the surface the services use: lifecycle, auto-lock, the confirmation gate and
 * signing (vault-base), creating and opening, account changes and team mode (here). The file and
 * its unlocked keys (vault-state), reading the file (vault-reader), the key ring and the document
 * edits (account-edits) each live in their own module.
 */
import { secp256k1 } from '@noble/curves/secp256k1'
import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { dirname } from 'node:path'
import { bytesToHex, type Address, type Hex, type TypedDataDefinition } from 'viem'
import {
  dropOwnerKey as dropOwnerKeyEdit,
  addWatchOnlyOwner,
  cleanLabel,
  newVaultBody,
  putNewAgentKey,
  putOwnerKey,
  relabelOwner,
  removeOwner,
  resealAll,
  retireAgent,
  type DocChange,
  type VaultBody,
} from './account-edits'
import { removeStaleTemps, writeFileAtomic } from './atomic-write'
import { vaultError } from './errors'
import {
  dropTeamSecret,
  openTeamSecret,
  putIdentityKey,
  putTeamSecret,
  resealTeam,
  signAsIdentityKey,
  type TeamSecretName,
} from './identity-key'
import { DEFAULT_SCRYPT, checkScryptParams } from './kdf'
import { findOwner, lc } from './key-ring'
import { decryptKeystore, encryptKeystore, type KeystoreV3 } from './keystore-v3'
import { assertPassphraseStrong } from './passphrase-policy'
import { generatePrivateKey, normalizePrivateKey, parseAddress, parsePrivateKeyText } from './private-key'
import { deriveMasterKey, fileMac } from './record-cipher'
import { openShare, type ShareEnvelope } from './share-envelope'
import type { SigningIntent } from './signing-policy'
import { isAgentSlot, type AgentSlot, type SignerRef } from './types'
import { VaultBase } from './vault-base'
import { canonicalBody, serializeVault, type VaultDoc } from './vault-file'
import type { CreateVaultOptions, ExportKeystoreOptions, VaultOptions } from './vault-options'
import { fileExists, readVaultDoc } from './vault-reader'
import type { Unlocked } from './vault-state'

export type { BackupState } from './vault-reader'

export {
  DEFAULT_AUTO_LOCK_MS,
  vaultPath,
  type CreateVaultOptions,
  type ExportKeystoreOptions,
  type VaultCustody,
  type VaultOptions,
} from './vault-options'

export class Vault extends VaultBase {
  private constructor(options: VaultOptions, doc: VaultDoc, diskText: string) {
    super(options, doc, diskText)
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  static async exists(path: string): Promise<boolean> {
    return fileExists(path)
  }

  /** Creates a new, empty vault file (never overwrites one) and returns it unlocked. */
  static async create(options: CreateVaultOptions): Promise<Vault> {
    if (await Vault.exists(options.path)) {
      throw vaultError('VaultExists', `a vault already exists at ${options.path}`, { path: options.path })
    }
    assertPassphraseStrong(options.passphrase, options.passphrasePolicy)
    const params = options.scrypt ?? DEFAULT_SCRYPT
    checkScryptParams(params, 'vault')
    const salt = randomBytes(32)
    const master = await deriveMasterKey(options.passphrase, salt, params)
    const body = newVaultBody(master, salt, params)
    const doc: VaultDoc = { ...body, mac: fileMac(master, canonicalBody(body)) }
    const text = serializeVault(doc)
    await fs.mkdir(dirname(options.path), { recursive: true, mode: 0o700 })
    try {
      await writeFileAtomic(options.path, text, { mode: 0o600, backup: false, hooks: options.writeHooks })
    } catch (e) {
      master.fill(0)
      throw vaultError('VaultWriteFailed', `could not write the vault file ${options.path}: ${(e as Error).message}`, {
        path: options.path,
      })
    }
    const vault = new Vault(options, doc, text)
    vault.state.adoptNew(master)
    vault.policy.notePassphraseEntered()
    vault.idle.arm()
    return vault
  }

  /** Opens an existing vault, locked. Addresses and labels are readable at once. */
  static async open(options: VaultOptions): Promise<Vault> {
    await removeStaleTemps(options.path)
    const { text, doc } = await readVaultDoc(options.path)
    return new Vault(options, doc, text)
  }

  // ---- changes -----------------------------------------------------------------------------

  private mutate<T>(change: (doc: VaultBody, u: Unlocked) => DocChange<T>): Promise<T> {
    return this.state.mutate(change)
  }

  /** Adds an owner key (or gives a watch-only account its key). Consumes `key`: it is zeroed or kept by the vault. */
  private addOwnerKey(key: Uint8Array, label: string | undefined): Promise<Address> {
    return this.mutate((doc, u) => putOwnerKey(doc, u.master, key, label, this.now)).catch((e: unknown) => {
      key.fill(0)
      throw e
    })
  }

  /** Imports a raw private key (hex text or bytes). The caller's buffer is not retained. */
  async importPrivateKey(key: string | Uint8Array, label?: string): Promise<Address> {
    this.requireUnlocked()
    if (label !== undefined) cleanLabel(label, '')
    const k = typeof key === 'string' ? parsePrivateKeyText(key) : normalizePrivateKey(key)
    return this.addOwnerKey(k, label)
  }

  /** Imports a Web3 Secret Storage v3 keystore (scrypt or pbkdf2) as an owner account. */
  async importKeystore(keystore: string | unknown, keystorePassphrase: string, label?: string): Promise<Address> {
    this.requireUnlocked()
    if (label !== undefined) cleanLabel(label, '')
    const { key } = await decryptKeystore(keystore, keystorePassphrase)
    return this.addOwnerKey(key, label)
  }

  /** A new owner key from the OS CSPRNG. */
  async generateOwnerKey(label?: string): Promise<Address> {
    this.requireUnlocked()
    if (label !== undefined) cleanLabel(label, '')
    return this.addOwnerKey(generatePrivateKey(), label)
  }

  /** Adds an address without a key: visible everywhere, signable nowhere. */
  async addWatchOnly(address: string, label?: string): Promise<Address> {
    const a = parseAddress(address)
    return this.mutate((doc) => addWatchOnlyOwner(doc, a, label, this.now))
  }

  async setLabel(address: string, label: string): Promise<void> {
    const a = parseAddress(address)
    return this.mutate((doc) => relabelOwner(doc, a, label))
  }

  /** Removes an owner account with its key and agent keys (the previous file stays in `.bak`). */
  async removeAccount(address: string): Promise<void> {
    const a = parseAddress(address)
    return this.mutate((doc) => removeOwner(doc, a, this.now))
  }

  /**
   * Generates an agent key for (owner, slot) and returns its address only. An occupied slot is
   * `AgentSlotOccupied` unless `replace` is set, which retires the previous key in the same write.
   */
  async generateAgentKey(owner: Address, slot: AgentSlot, options: { replace?: boolean } = {}): Promise<Address> {
    if (!isAgentSlot(slot)) throw vaultError('InvalidAgentSlot', 'agent slot must be 0, 1, 2 or 3')
    return this.mutate((doc, u) => putNewAgentKey(doc, u.master, owner, slot, options.replace, this.now))
  }

  /** Deletes the agent key of (owner, slot); its address is kept in `retiredAgents()`. Returns that address. */
  async retireAgentKey(owner: Address, slot: AgentSlot): Promise<Address> {
    if (!isAgentSlot(slot)) throw vaultError('InvalidAgentSlot', 'agent slot must be 0, 1, 2 or 3')
    return this.mutate((doc) => retireAgent(doc, owner, slot, this.now))
  }

  /** Re-encrypts every record under a new passphrase, in one atomic write. */
  async changePassphrase(current: string, next: string): Promise<void> {
    this.requireUnlocked()
    assertPassphraseStrong(next, this.passphrasePolicy)
    if (!(await this.verifyPassphrase(current))) throw vaultError('PassphraseIncorrect', 'wrong vault passphrase; nothing changed')
    const params = this.kdfParams()
    const salt = randomBytes(32)
    const newMaster = await deriveMasterKey(next, salt, params)
    await this.mutate((doc, u) => {
      const change = resealAll(doc, u.keys, newMaster, salt, params)
      resealTeam(change.doc, u.keys, u.master, newMaster)
      return change
    }).catch((e: unknown) => {
      newMaster.fill(0)
      throw e
    })
    this.policy.notePassphraseEntered()
  }

  /**
   * Exports one key (owner or agent, by address) as a v3 keystore under a passphrase of the
   * operator's choice. The vault passphrase is always re-entered for this.
   */
  async exportKeystore(address: string, options: ExportKeystoreOptions): Promise<KeystoreV3> {
    const a = parseAddress(address)
    this.requireUnlocked()
    assertPassphraseStrong(options.keystorePassphrase, this.passphrasePolicy)
    if (!(await this.verifyPassphrase(options.vaultPassphrase))) {
      throw vaultError('PassphraseIncorrect', 'wrong vault passphrase; nothing exported')
    }
    const key = this.requireUnlocked().keys.get(lc(a))
    if (!key) {
      const owner = findOwner(this.state.doc, a)
      if (owner && !owner.key && this.teamHolds(a))
        throw vaultError('TeamHeldKey', `${a}'s owner key is held by the team's shares: no desk holds it whole, so none can export it`)
      if (owner && !owner.key) throw vaultError('WatchOnlyAccount', `${a} is watch-only: there is no key to export`)
      throw vaultError('AccountNotInVault', `${a} has no key in the vault`)
    }
    return encryptKeystore(key, options.keystorePassphrase, options.kdf)
  }

  // ---- custody: owner keys held by the team's shares (features/team custody) ---------------

  /**
   * The owner key of `address`, for `fn` only (splitting it into the team's shares): a copy, zeroed
   * when `fn` ends, after the operator confirmed with the passphrase due. Never returned, never logged.
   */
  async withOwnerKey<T>(address: string, intent: SigningIntent, fn: (key: Uint8Array) => Promise<T>): Promise<T> {
    const ref: SignerRef = { owner: address as Address, role: 'owner' }
    this.keyFor(ref)
    await this.policy.approve(intent)
    const key = Uint8Array.from(this.keyFor(ref))
    try {
      return await fn(key)
    } finally {
      key.fill(0)
    }
  }

  /** The owner key leaves the vault: its account is held by the team's shares from now on. */
  async dropOwnerKey(address: string): Promise<void> {
    this.requireUnlocked()
    return this.mutate((doc) => dropOwnerKeyEdit(doc, address as Address))
  }

  /** The identity key's public key (uncompressed hex), for members to seal shares to it. */
  identityPublicKey(): Hex | null {
    const address = this.identityAddress()
    const key = address ? this.unlocked?.keys.get(lc(address)) : undefined
    return key ? bytesToHex(secp256k1.getPublicKey(key, false)) : null
  }

  /** Opens a share sealed to this operator's identity key (null: not for this key or this binding). Main only; the caller zeroes it. */
  openForIdentity(envelope: ShareEnvelope, aad: Uint8Array): Uint8Array | null {
    const address = this.identityAddress()
    const key = address ? this.requireUnlocked().keys.get(lc(address)) : undefined
    if (!key) throw vaultError('IdentityKeyMissing', 'this vault has no operator identity key')
    return openShare(key, envelope, aad)
  }

  // ---- team mode (identity-key.ts) ---------------------------------------------------------

  /** The operator identity key's address, or null before it is created. Readable while locked. */
  identityAddress(): Address | null {
    return this.state.doc.team?.identity?.address ?? null
  }

  /** Creates the operator identity key (once). It signs team entries only; no SignerRef names it. */
  async createIdentityKey(): Promise<Address> {
    this.requireUnlocked()
    return this.mutate((doc, u) => putIdentityKey(doc, u.master, this.now))
  }

  /**
   * The operator's confirmation of an act that is not itself an owner-key signature but decides one
   * (a team approval): the same dialog, and the passphrase again when the re-entry window passed.
   */
  async confirmAction(intent: SigningIntent): Promise<void> {
    this.requireUnlocked()
    await this.policy.approve(intent)
  }

  /** EIP-712 signature by the identity key (a team chain entry). No confirmation gate of its own: confirmAction asks first where it decides a fund move. */
  async signAsIdentity(typedData: TypedDataDefinition): Promise<Hex> {
    const address = this.identityAddress()
    if (!address) throw vaultError('IdentityKeyMissing', 'this vault has no operator identity key yet')
    return signAsIdentityKey(this.unlocked?.keys, address, typedData)
  }

  /** Keeps a team secret (the team store password) sealed in the vault, never in settings. */
  async setTeamSecret(name: TeamSecretName, value: string): Promise<void> {
    this.requireUnlocked()
    return this.mutate((doc, u) => putTeamSecret(doc, u.master, name, value))
  }

  /** Removes a team secret (leaving a team through its chain). */
  async dropTeamSecret(name: TeamSecretName): Promise<void> {
    this.requireUnlocked()
    return this.mutate((doc) => dropTeamSecret(doc, name))
  }

  /** A team secret, for main's own use (the team store connection); never sent over IPC. */
  teamSecret(name: TeamSecretName): string | null {
    return openTeamSecret(this.state.doc, this.requireUnlocked().master, name)
  }
}
