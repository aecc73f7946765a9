import { bytesToHex, hashTypedData, keccak256, type Address, type Hex, type TypedData, type TypedDataDefinition } from 'viem'
import { sign } from 'viem/accounts'
import { vaultError } from './errors'
import { IdleTimer } from './idle-timer'
import type { ScryptParams } from './kdf'
import { findOwner, signingKey, verifierOpens } from './key-ring'
import { DEFAULT_PASSPHRASE_POLICY, type PassphrasePolicy } from './passphrase-policy'
import { deriveMasterKey } from './record-cipher'
import { SigningPolicy, type Confirmer, type SigningIntent } from './signing-policy'
import type { LockReason, OwnerAccountInfo, RetiredAgentInfo, SignerRef, VaultEvent } from './types'
import type { VaultDoc } from './vault-file'
import { DEFAULT_AUTO_LOCK_MS, type VaultCustody, type VaultOptions } from './vault-options'
import { VaultState, type Unlocked } from './vault-state'

/**
 * The vault's state and what it does with it: lifecycle (lock, unlock, auto-lock, reload), the
 * confirmation gate, reading accounts, and signing. `Vault` (vault.ts) adds creating and opening,
 * account changes and team mode on top.
 */
export class VaultBase {
  readonly path: string
  protected readonly state: VaultState
  protected readonly idle: IdleTimer
  protected readonly policy: SigningPolicy
  protected custody: VaultCustody | null = null
  protected readonly passphrasePolicy: PassphrasePolicy
  protected readonly now: () => number

  protected constructor(options: VaultOptions, doc: VaultDoc, diskText: string) {
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

  /** The decrypted keys and master key, or null while locked (the vault tests inspect it to prove zeroing). */
  protected get unlocked(): Unlocked | null {
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

  protected keyFor(ref: SignerRef): Uint8Array {
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

  // ---- custody: owner keys held by the team's shares (features/team custody) ---------------

  /** Team mode installs how team-held owner keys sign (shares released for one approved digest). */
  setCustody(custody: VaultCustody | null): void {
    this.custody = custody
  }

  protected teamHolds(address: string): boolean {
    return this.custody?.holds(address.toLowerCase()) ?? false
  }

  protected hasOwnKey(address: string): boolean {
    return findOwner(this.state.doc, address as Address)?.key != null
  }

  protected requireUnlocked(): Unlocked {
    const u = this.unlocked
    if (!u) throw vaultError('VaultLocked', 'the vault is locked; unlock it first')
    return u
  }
}
