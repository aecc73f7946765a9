/**
 * The vault: every private key of every account, encrypted at rest under one operator
 * passphrase, decrypted only in this module's memory while unlocked. Nothing here returns a key;
 * callers name keys with a SignerRef and get signatures back.
 *
 * This class is the surface the services use: lifecycle, auto-lock, the confirmation gate,
 * signing and account changes. The file and its unlocked keys (vault-state), reading the file
 * (vault-reader), the key ring and the document edits (account-edits) each live in their own module.
 */
import { secp256k1 } from '@noble/curves/secp256k1'
import { openShare, type ShareEnvelope } from './share-envelope'
import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { dirname, join } from 'node:path'
import { bytesToHex, hashTypedData, keccak256, type Address, type Hex, type TypedData, type TypedDataDefinition } from 'viem'
import { sign } from 'viem/accounts'
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
import { removeStaleTemps, writeFileAtomic, type AtomicWriteHooks } from './atomic-write'
import {
  dropTeamSecret,
  openTeamSecret,
  putIdentityKey,
  putTeamSecret,
  resealTeam,
  signAsIdentityKey,
  type TeamSecretName,
} from './identity-key'
import { vaultError } from './errors'
import { IdleTimer } from './idle-timer'
import { DEFAULT_SCRYPT, checkScryptParams, type ScryptParams } from './kdf'
import { findOwner, lc, signingKey, verifierOpens } from './key-ring'
import { decryptKeystore, encryptKeystore, type KeystoreExportKdf, type KeystoreV3 } from './keystore-v3'
import { DEFAULT_PASSPHRASE_POLICY, assertPassphraseStrong, type PassphrasePolicy } from './passphrase-policy'
import { generatePrivateKey, normalizePrivateKey, parseAddress, parsePrivateKeyText } from './private-key'
import { deriveMasterKey, fileMac } from './record-cipher'
import { SigningPolicy, type Confirmer, type SigningIntent } from './signing-policy'
import {
  isAgentSlot,
  type AgentSlot,
  type LockReason,
  type OwnerAccountInfo,
  type RetiredAgentInfo,
  type SignerRef,
  type VaultEvent,
} from './types'
import { VAULT_FILE_NAME, canonicalBody, serializeVault, type VaultDoc } from './vault-file'
import { fileExists, readVaultDoc } from './vault-reader'
import { VaultState, type Unlocked } from './vault-state'

export type { BackupState } from './vault-reader'

export const DEFAULT_AUTO_LOCK_MS = 15 * 60_000

export interface VaultOptions {
  /** The vault file; use `vaultPath(dataDir)` for the shared location. */
  path: string
  /** Idle time before auto-lock; `null` disables it. Default 15 minutes. */
  autoLockMs?: number | null
  /** Passphrase re-entry window for owner-key actions. Default 5 minutes. */
  reentryWindowMs?: number
  passphrasePolicy?: PassphrasePolicy
  confirmer?: Confirmer
  now?: () => number
  /** Test hook into the atomic write (crash simulation). */
  writeHooks?: AtomicWriteHooks
}

export interface CreateVaultOptions extends VaultOptions {
  passphrase: string
  /** scrypt cost recorded in the file; default N=2^18, r=8, p=1. Tests pass lower values. */
  scrypt?: ScryptParams
}

export interface ExportKeystoreOptions {
  /** The vault passphrase, always re-entered to export a key. */
  vaultPassphrase: string
  /** The keystore's own passphrase, chosen by the operator (policy-checked). */
  keystorePassphrase: string
  kdf?: KeystoreExportKdf
}

export function vaultPath(dataDir: string): string {
  return join(dataDir, VAULT_FILE_NAME)
}

/** How owner keys held by the team sign (installed by team mode; the vault never holds them). */
export interface VaultCustody {
  holds(address: string): boolean
  sign(address: string, typedData: TypedDataDefinition, digest: Hex): Promise<Hex>
}

export class Vault {
  readonly path: string
  private readonly state: VaultState
  private readonly idle: IdleTimer
  private readonly policy: SigningPolicy
  private custody: VaultCustody | null = null
  private readonly passphrasePolicy: PassphrasePolicy
  private readonly now: () => number

  private constructor(options: VaultOptions, doc: VaultDoc, diskText: string) {
    this.path = options.path
    this.now = options.now ?? Date.now
    this.passphrasePolicy = options.passphrasePolicy ?? DEFAULT_PASSPHRASE_POLICY
    this.state = new VaultState(options.path, doc, diskText, {
      writeHooks: options.writeHooks,
      onUnlocked: () => {
        this.policy.notePassphraseEntered()
        this.idle.arm()
      },
      lock: (reason) => this.lock(reason),
    })
    this.idle = new IdleTimer(options.autoLockMs === undefined ? DEFAULT_AUTO_LOCK_MS : options.autoLockMs, () => this.lock('idle'))
    this.policy = new SigningPolicy({
      reentryWindowMs: options.reentryWindowMs,
      now: this.now,
      verifyPassphrase: (p) => this.verifyPassphrase(p),
    })
    if (options.confirmer) this.policy.setConfirmer(options.confirmer)
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

  /** The decrypted keys and master key, or null while locked (the vault tests inspect it to prove zeroing). */
  private get unlocked(): Unlocked | null {
    return this.state.unlocked
  }

  get isUnlocked(): boolean {
    return this.unlocked !== null
  }

  onEvent(listener: (event: VaultEvent) => void): () => void {
    return this.state.onEvent(listener)
  }

  setConfirmer(confirmer: Confirmer | null): void {
    this.policy.setConfirmer(confirmer)
  }

  setAutoLockMs(ms: number | null): void {
    this.idle.setIdleMs(ms)
  }

  setReentryWindowMs(ms: number): void {
    this.policy.setReentryWindowMs(ms)
  }

  /** Operator activity: postpones auto-lock. */
  touch(): void {
    this.idle.touch()
  }

  /** scrypt parameters recorded in the file. */
  kdfParams(): ScryptParams {
    const { kdf } = this.state.doc
    return { n: kdf.n, r: kdf.r, p: kdf.p }
  }

  /** Zeroes every decrypted key and the master key. Idempotent, synchronous. */
  lock(reason: LockReason = 'manual'): void {
    this.idle.disarm()
    this.policy.reset()
    if (this.state.zeroAll()) this.state.emit({ type: 'locked', reason })
  }

  /**
   * Unlocks with the passphrase, decrypts every key, and self-tests each (sign random bytes,
   * recover, compare). A wrong passphrase is `PassphraseIncorrect` and changes nothing.
   */
  unlock(passphrase: string): Promise<void> {
    return this.state.unlock(passphrase)
  }

  /**
   * Picks up changes another process (`desk`) made to the file. Locked: re-reads addresses and
   * labels. Unlocked: verifies and decrypts the new content (a passphrase changed elsewhere locks).
   */
  reload(): Promise<void> {
    return this.state.reload()
  }

  /** True when `passphrase` unlocks this vault. Costs one scrypt (off the main thread). */
  async verifyPassphrase(passphrase: string): Promise<boolean> {
    const doc = this.state.doc
    const { kdf } = doc
    const master = await deriveMasterKey(passphrase, Buffer.from(kdf.salt, 'hex'), { n: kdf.n, r: kdf.r, p: kdf.p })
    try {
      return verifierOpens(doc, master)
    } finally {
      master.fill(0)
    }
  }

  // ---- reading -----------------------------------------------------------------------------

  listAccounts(): OwnerAccountInfo[] {
    return this.state.doc.owners.map((o) => ({
      address: o.address,
      label: o.label,
      watchOnly: o.key === null && !this.teamHolds(o.address),
      ...(o.key === null && this.teamHolds(o.address) ? { teamHeld: true } : {}),
      createdAt: o.createdAt,
      agents: o.agents.map((g) => ({ slot: g.slot, address: g.address, createdAt: g.createdAt })).sort((a, b) => a.slot - b.slot),
    }))
  }

  retiredAgents(): RetiredAgentInfo[] {
    return this.state.doc.retiredAgents.map((g) => ({ ...g }))
  }

  /** The address a SignerRef names, or null when the vault has no such account or agent key. */
  addressOf(ref: SignerRef): Address | null {
    const owner = findOwner(this.state.doc, ref.owner)
    if (!owner) return null
    if (ref.role === 'owner') return owner.address
    return owner.agents.find((g) => g.slot === ref.slot)?.address ?? null
  }

  /** Whether a signature by `ref` is possible now (unlocked, key present, or the owner key held by the team's shares). */
  canSign(ref: SignerRef): boolean {
    if (ref.role === 'owner' && this.unlocked && this.teamHolds(ref.owner) && !this.hasOwnKey(ref.owner)) return true
    try {
      this.keyFor(ref)
      return true
    } catch {
      return false
    }
  }

  // ---- signing -----------------------------------------------------------------------------

  private keyFor(ref: SignerRef): Uint8Array {
    return signingKey(this.state.doc, this.unlocked?.keys ?? null, ref)
  }

  /**
   * Raw recoverable secp256k1 signature of keccak256(payload): 65 bytes r||s||v, v = 27/28, no EIP-191 prefix.
   * With an `intent` (an order the owner key signs), the owner key passes the confirmation gate first.
   */
  async signLegacy(ref: SignerRef, payload: Uint8Array, intent?: SigningIntent): Promise<Hex> {
    if (!(payload instanceof Uint8Array)) throw vaultError('InvalidHex', 'the payload to sign must be bytes')
    if (ref.role === 'owner' && this.teamHolds(ref.owner) && !this.hasOwnKey(ref.owner))
      throw vaultError(
        'TeamHeldKey',
        `${ref.owner}'s owner key is held by the team's shares: they are released for an approved EIP-712 write only; trade through an API key`,
      )
    if (ref.role === 'owner' && intent) {
      this.keyFor(ref) // fail before asking the operator
      await this.policy.approve(intent)
    }
    const key = this.keyFor(ref) // the vault may have locked while the operator was deciding
    return sign({ hash: keccak256(payload), privateKey: bytesToHex(key), to: 'hex' })
  }

  /**
   * EIP-712 v4 signature (65 bytes r||s||v). Owner-key signatures pass the confirmation gate first:
   * `intent` carries the summary built in main.
   */
  async signTypedData<const typedData extends TypedData | Record<string, unknown>, primaryType extends keyof typedData | 'EIP712Domain'>(
    ref: SignerRef,
    typedData: TypedDataDefinition<typedData, primaryType>,
    intent?: SigningIntent,
  ): Promise<Hex> {
    if (!(ref.role === 'owner' && this.teamHolds(ref.owner) && !this.hasOwnKey(ref.owner))) this.keyFor(ref) // fail before asking the operator
    let digest: Hex
    try {
      digest = hashTypedData(typedData)
    } catch (e) {
      throw vaultError('InvalidTypedData', `the typed data cannot be encoded: ${(e as Error).message.split('\n')[0]}`)
    }
    if (ref.role === 'owner') await this.policy.approve(intent)
    // An owner key held by the team: no key here; the team's shares sign this digest (features/team custody).
    if (ref.role === 'owner' && this.custody && this.teamHolds(ref.owner) && !this.hasOwnKey(ref.owner)) {
      this.requireUnlocked()
      return this.custody.sign(ref.owner.toLowerCase(), typedData as TypedDataDefinition, digest)
    }
    const key = this.keyFor(ref) // the vault may have locked while the operator was deciding
    return sign({ hash: digest, privateKey: bytesToHex(key), to: 'hex' })
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

  /** Team mode installs how team-held owner keys sign (shares released for one approved digest). */
  setCustody(custody: VaultCustody | null): void {
    this.custody = custody
  }

  private teamHolds(address: string): boolean {
    return this.custody?.holds(address.toLowerCase()) ?? false
  }

  private hasOwnKey(address: string): boolean {
    return findOwner(this.state.doc, address as Address)?.key != null
  }

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

  private requireUnlocked(): Unlocked {
    const u = this.unlocked
    if (!u) throw vaultError('VaultLocked', 'the vault is locked; unlock it first')
    return u
  }
}
