/**
 * The vault: every private key of every account, encrypted at rest under one operator
 * passphrase, decrypted only in this module's memory while unlocked. Nothing here returns a key;
 * callers name keys with a SignerRef and get signatures back.
 */
import { randomBytes } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { dirname, join } from 'node:path'
import { bytesToHex, hashTypedData, keccak256, recoverAddress, type Address, type Hex, type TypedData, type TypedDataDefinition } from 'viem'
import { sign } from 'viem/accounts'
import { removeStaleTemps, writeFileAtomic, type AtomicWriteHooks } from './atomic-write'
import { VaultError, vaultError } from './errors'
import { IdleTimer } from './idle-timer'
import { DEFAULT_SCRYPT, checkScryptParams, type ScryptParams } from './kdf'
import { decryptKeystore, encryptKeystore, type KeystoreExportKdf, type KeystoreV3 } from './keystore-v3'
import { DEFAULT_PASSPHRASE_POLICY, assertPassphraseStrong, type PassphrasePolicy } from './passphrase-policy'
import { addressOfKey, generatePrivateKey, normalizePrivateKey, parseAddress, parsePrivateKeyText } from './private-key'
import { deriveMasterKey, fileMac, macEquals, openRecord, sealRecord, type SealedRecord } from './record-cipher'
import { SigningPolicy, type Confirmer, type SigningIntent } from './signing-policy'
import { isAgentSlot, type AgentSlot, type LockReason, type OwnerAccountInfo, type RetiredAgentInfo, type SignerRef, type VaultEvent } from './types'
import {
  VAULT_FILE_NAME, VAULT_FORMAT, VAULT_VERSION, VERIFIER_PLAINTEXT, aad, canonicalBody, hasChecksum, parseVaultText, serializeVault,
  type OwnerRecord, type VaultDoc,
} from './vault-file'

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

interface Unlocked {
  master: Buffer
  /** Decrypted keys by lowercase address. Zeroed on lock. */
  keys: Map<string, Uint8Array>
}

interface MutationResult<T> {
  doc: Omit<VaultDoc, 'mac'>
  value: T
  addKeys?: Map<string, Uint8Array>
  dropKeys?: string[]
  newMaster?: Buffer
}

const lc = (a: string) => a.toLowerCase()
const nowIso = (now: () => number) => new Date(now()).toISOString()

function cleanLabel(label: string | undefined, fallback: string): string {
  const l = (label ?? '').trim()
  if (l.length > 64) throw vaultError('InvalidLabel', 'a label has at most 64 characters')
  if (/\p{Cc}/u.test(l)) throw vaultError('InvalidLabel', 'a label cannot contain control characters')
  return l === '' ? fallback : l
}

function shortAddress(a: Address): string {
  return `${a.slice(0, 6)}…${a.slice(-4)}`
}

async function readVaultText(path: string): Promise<string> {
  try {
    return await fs.readFile(path, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      const bak = await fs.stat(`${path}.bak`).then(() => true, () => false)
      throw vaultError('VaultNotFound', `no vault at ${path}${bak ? ` (a backup exists at ${path}.bak)` : '; create one with `desk keys init`'}`, { path })
    }
    throw vaultError('VaultCorrupt', `cannot read the vault file ${path}: ${(e as Error).message}`, { path, damage: 'unreadable' })
  }
}

/** What the `.bak` copy next to a damaged vault is worth: the operator's way back. */
export type BackupState = 'intact' | 'unverified' | 'damaged' | 'missing'

async function inspectBackup(path: string): Promise<{ state: BackupState; advice: string }> {
  const bak = `${path}.bak`
  let text: string
  try {
    text = await fs.readFile(bak, 'utf8')
  } catch {
    return { state: 'missing', advice: `There is no backup copy (${bak} is missing).` }
  }
  try {
    parseVaultText(text, bak)
  } catch {
    return { state: 'damaged', advice: `The backup ${bak} is damaged too.` }
  }
  return hasChecksum(text)
    ? { state: 'intact', advice: `The last good copy is ${bak} (checksum verified); it holds the version before the last change.` }
    : { state: 'unverified', advice: `The previous version is kept as ${bak} (written before checksums existed, so it could not be verified).` }
}

/** Adds the state of the backup copy to a damage report; every other error passes unchanged. */
async function withBackupAdvice(e: unknown, path: string): Promise<never> {
  if (!(e instanceof VaultError) || e.code !== 'VaultCorrupt') throw e
  const backup = await inspectBackup(path)
  throw vaultError('VaultCorrupt', `${e.message}. ${backup.advice}`, { ...e.details, path, backup: `${path}.bak`, backupState: backup.state })
}

/** Checks file text (checksum included) before anything derives a key from it. */
async function parseChecked(text: string, path: string): Promise<VaultDoc> {
  try {
    return parseVaultText(text, path)
  } catch (e) {
    return withBackupAdvice(e, path)
  }
}

async function readVaultDoc(path: string): Promise<{ text: string; doc: VaultDoc }> {
  const text = await readVaultText(path)
  return { text, doc: await parseChecked(text, path) }
}

export class Vault {
  readonly path: string
  private doc: VaultDoc
  private diskText: string
  private unlocked: Unlocked | null = null
  private readonly listeners = new Set<(e: VaultEvent) => void>()
  private readonly idle: IdleTimer
  private readonly policy: SigningPolicy
  private readonly passphrasePolicy: PassphrasePolicy
  private readonly now: () => number
  private readonly writeHooks: AtomicWriteHooks | undefined
  private queue: Promise<unknown> = Promise.resolve()

  private constructor(options: VaultOptions, doc: VaultDoc, diskText: string) {
    this.path = options.path
    this.doc = doc
    this.diskText = diskText
    this.now = options.now ?? Date.now
    this.passphrasePolicy = options.passphrasePolicy ?? DEFAULT_PASSPHRASE_POLICY
    this.writeHooks = options.writeHooks
    this.idle = new IdleTimer(options.autoLockMs === undefined ? DEFAULT_AUTO_LOCK_MS : options.autoLockMs, () => this.lock('idle'))
    this.policy = new SigningPolicy({ reentryWindowMs: options.reentryWindowMs, now: this.now, verifyPassphrase: (p) => this.verifyPassphrase(p) })
    if (options.confirmer) this.policy.setConfirmer(options.confirmer)
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  static async exists(path: string): Promise<boolean> {
    return fs.stat(path).then(() => true, () => false)
  }

  /** Creates a new, empty vault file (never overwrites one) and returns it unlocked. */
  static async create(options: CreateVaultOptions): Promise<Vault> {
    if (await Vault.exists(options.path)) throw vaultError('VaultExists', `a vault already exists at ${options.path}`, { path: options.path })
    assertPassphraseStrong(options.passphrase, options.passphrasePolicy)
    const params = options.scrypt ?? DEFAULT_SCRYPT
    checkScryptParams(params, 'vault')
    const salt = randomBytes(32)
    const master = await deriveMasterKey(options.passphrase, salt, params)
    const body: Omit<VaultDoc, 'mac'> = {
      format: VAULT_FORMAT,
      version: VAULT_VERSION,
      kdf: { name: 'scrypt', n: params.n, r: params.r, p: params.p, salt: salt.toString('hex') },
      cipher: 'aes-256-gcm',
      verifier: sealRecord(master, Buffer.from(VERIFIER_PLAINTEXT), aad.verifier()),
      owners: [],
      retiredAgents: [],
    }
    const doc: VaultDoc = { ...body, mac: fileMac(master, canonicalBody(body)) }
    const text = serializeVault(doc)
    await fs.mkdir(dirname(options.path), { recursive: true, mode: 0o700 })
    try {
      await writeFileAtomic(options.path, text, { mode: 0o600, backup: false, hooks: options.writeHooks })
    } catch (e) {
      master.fill(0)
      throw vaultError('VaultWriteFailed', `could not write the vault file ${options.path}: ${(e as Error).message}`, { path: options.path })
    }
    const vault = new Vault(options, doc, text)
    vault.unlocked = { master, keys: new Map() }
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

  get isUnlocked(): boolean {
    return this.unlocked !== null
  }

  onEvent(listener: (event: VaultEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private emit(event: VaultEvent): void {
    for (const l of this.listeners) {
      try {
        l(event)
      } catch {
        // A faulty listener must not break locking.
      }
    }
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
    return { n: this.doc.kdf.n, r: this.doc.kdf.r, p: this.doc.kdf.p }
  }

  /** Zeroes every decrypted key and the master key. Idempotent, synchronous. */
  lock(reason: LockReason = 'manual'): void {
    this.idle.disarm()
    this.policy.reset()
    const u = this.unlocked
    if (!u) return
    this.unlocked = null
    for (const k of u.keys.values()) k.fill(0)
    u.keys.clear()
    u.master.fill(0)
    this.emit({ type: 'locked', reason })
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => undefined)
    return run
  }

  /**
   * Unlocks with the passphrase, decrypts every key, and self-tests each (sign random bytes,
   * recover, compare). A wrong passphrase is `PassphraseIncorrect` and changes nothing.
   */
  unlock(passphrase: string): Promise<void> {
    return this.serial(async () => {
      // Damage is found here, before the (costly) derivation: it never reads as a wrong passphrase.
      const { text, doc } = await readVaultDoc(this.path)
      const master = await deriveMasterKey(passphrase, Buffer.from(doc.kdf.salt, 'hex'), { n: doc.kdf.n, r: doc.kdf.r, p: doc.kdf.p })
      let keys: Map<string, Uint8Array>
      try {
        keys = this.decryptAll(doc, master)
        await this.selfTest(keys)
      } catch (e) {
        master.fill(0)
        return withBackupAdvice(e, this.path)
      }
      const previous = this.unlocked
      this.unlocked = { master, keys }
      if (previous) {
        for (const k of previous.keys.values()) k.fill(0)
        previous.master.fill(0)
      }
      this.doc = doc
      this.diskText = text
      this.policy.notePassphraseEntered()
      this.idle.arm()
      this.emit({ type: 'unlocked' })
    })
  }

  /**
   * Picks up changes another process (`desk`) made to the file. Locked: re-reads addresses and
   * labels. Unlocked: verifies and decrypts the new content (a passphrase changed elsewhere locks).
   */
  reload(): Promise<void> {
    return this.serial(async () => {
      if (this.unlocked) return this.reloadIfChanged(this.unlocked)
      const text = await readVaultText(this.path)
      if (text === this.diskText) return
      this.doc = await parseChecked(text, this.path)
      this.diskText = text
      this.emit({ type: 'accountsChanged' })
    })
  }

  /** Checks the verifier and file MAC, then decrypts every key record. */
  private decryptAll(doc: VaultDoc, master: Buffer): Map<string, Uint8Array> {
    const verifier = openRecord(master, doc.verifier, aad.verifier())
    if (!verifier || verifier.toString() !== VERIFIER_PLAINTEXT) throw vaultError('PassphraseIncorrect', 'wrong vault passphrase')
    if (!macEquals(fileMac(master, canonicalBody(doc)), doc.mac)) {
      // The checksum matched (or the file predates it), so this is an edit, not accidental damage.
      throw vaultError('VaultCorrupt', `the vault file ${this.path} was altered (integrity check failed)`, { path: this.path, damage: 'mac' })
    }
    const keys = new Map<string, Uint8Array>()
    const take = (record: SealedRecord, recordAad: string, address: Address) => {
      const plain = openRecord(master, record, recordAad)
      if (!plain || plain.length !== 32) {
        plain?.fill(0)
        throw vaultError('VaultCorrupt', `the key record of ${address} in ${this.path} is damaged`, { path: this.path, address, damage: 'record' })
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
    } catch (e) {
      for (const k of keys.values()) k.fill(0)
      throw e
    }
    return keys
  }

  private async selfTest(keys: Map<string, Uint8Array>): Promise<void> {
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

  /** True when `passphrase` unlocks this vault. Costs one scrypt (off the main thread). */
  async verifyPassphrase(passphrase: string): Promise<boolean> {
    const { kdf } = this.doc
    const master = await deriveMasterKey(passphrase, Buffer.from(kdf.salt, 'hex'), { n: kdf.n, r: kdf.r, p: kdf.p })
    try {
      const v = openRecord(master, this.doc.verifier, aad.verifier())
      return v !== null && v.toString() === VERIFIER_PLAINTEXT
    } finally {
      master.fill(0)
    }
  }

  // ---- reading -----------------------------------------------------------------------------

  listAccounts(): OwnerAccountInfo[] {
    return this.doc.owners.map((o) => ({
      address: o.address,
      label: o.label,
      watchOnly: o.key === null,
      createdAt: o.createdAt,
      agents: o.agents.map((g) => ({ slot: g.slot, address: g.address, createdAt: g.createdAt })).sort((a, b) => a.slot - b.slot),
    }))
  }

  retiredAgents(): RetiredAgentInfo[] {
    return this.doc.retiredAgents.map((g) => ({ ...g }))
  }

  /** The address a SignerRef names, or null when the vault has no such account or agent key. */
  addressOf(ref: SignerRef): Address | null {
    const owner = this.findOwner(ref.owner)
    if (!owner) return null
    if (ref.role === 'owner') return owner.address
    return owner.agents.find((g) => g.slot === ref.slot)?.address ?? null
  }

  /** Whether a signature by `ref` is possible now (unlocked, key present). */
  canSign(ref: SignerRef): boolean {
    try {
      this.keyFor(ref)
      return true
    } catch {
      return false
    }
  }

  private findOwner(address: string): OwnerRecord | undefined {
    return this.doc.owners.find((o) => lc(o.address) === lc(address))
  }

  // ---- signing -----------------------------------------------------------------------------

  private keyFor(ref: SignerRef): Uint8Array {
    if (!this.unlocked) throw vaultError('VaultLocked', 'the vault is locked; unlock it to sign')
    const owner = this.findOwner(ref.owner)
    if (!owner) throw vaultError('AccountNotInVault', `${ref.owner} is not an account in the vault`, { owner: ref.owner })
    let address: Address
    if (ref.role === 'owner') {
      if (!owner.key) throw vaultError('WatchOnlyAccount', `${owner.address} (${owner.label}) is watch-only: the vault has no key to sign with`, { owner: owner.address })
      address = owner.address
    } else if (ref.role === 'agent') {
      if (!isAgentSlot(ref.slot)) throw vaultError('InvalidAgentSlot', 'agent slot must be 0, 1, 2 or 3')
      const agent = owner.agents.find((g) => g.slot === ref.slot)
      if (!agent) throw vaultError('AgentKeyNotFound', `no agent key in slot ${ref.slot} of ${owner.address}`, { owner: owner.address, slot: ref.slot })
      address = agent.address
    } else {
      throw vaultError('AccountNotInVault', 'unknown signer role')
    }
    const key = this.unlocked.keys.get(lc(address))
    if (!key) throw vaultError('VaultCorrupt', `the key of ${address} is missing from the unlocked vault`)
    return key
  }

  /** Raw recoverable secp256k1 signature of keccak256(payload): 65 bytes r||s||v, v = 27/28, no EIP-191 prefix. */
  async signLegacy(ref: SignerRef, payload: Uint8Array): Promise<Hex> {
    if (!(payload instanceof Uint8Array)) throw vaultError('InvalidHex', 'the payload to sign must be bytes')
    const key = this.keyFor(ref)
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
    this.keyFor(ref) // fail before asking the operator
    let digest: Hex
    try {
      digest = hashTypedData(typedData)
    } catch (e) {
      throw vaultError('InvalidTypedData', `the typed data cannot be encoded: ${(e as Error).message.split('\n')[0]}`)
    }
    if (ref.role === 'owner') await this.policy.approve(intent)
    const key = this.keyFor(ref) // the vault may have locked while the operator was deciding
    return sign({ hash: digest, privateKey: bytesToHex(key), to: 'hex' })
  }

  // ---- changes -----------------------------------------------------------------------------

  /** Runs one change: re-read the file if another process changed it, apply, write atomically. */
  private mutate<T>(change: (doc: Omit<VaultDoc, 'mac'>, u: Unlocked) => MutationResult<T>): Promise<T> {
    return this.serial(async () => {
      if (!this.unlocked) throw vaultError('VaultLocked', 'the vault is locked; unlock it first')
      await this.reloadIfChanged(this.unlocked)
      const u = this.unlocked
      const { mac: _mac, ...current } = structuredClone(this.doc)
      const result = change(current, u)
      const master = result.newMaster ?? u.master
      const next: VaultDoc = { ...result.doc, mac: fileMac(master, canonicalBody(result.doc)) }
      const text = serializeVault(next)
      try {
        await writeFileAtomic(this.path, text, { mode: 0o600, backup: true, hooks: this.writeHooks })
      } catch (e) {
        result.addKeys?.forEach((k) => k.fill(0))
        result.newMaster?.fill(0)
        throw vaultError('VaultWriteFailed', `could not write the vault file ${this.path}: ${(e as Error).message}; nothing changed`, { path: this.path })
      }
      this.doc = next
      this.diskText = text
      if (this.unlocked !== u) {
        // Locked while the write was in flight: the change is on disk, the new secrets go nowhere.
        result.addKeys?.forEach((k) => k.fill(0))
        result.newMaster?.fill(0)
        this.emit({ type: 'accountsChanged' })
        return result.value
      }
      for (const [a, k] of result.addKeys ?? []) u.keys.set(a, k)
      for (const a of result.dropKeys ?? []) {
        u.keys.get(a)?.fill(0)
        u.keys.delete(a)
      }
      if (result.newMaster) {
        u.master.fill(0)
        u.master = result.newMaster
      }
      this.emit({ type: 'accountsChanged' })
      return result.value
    })
  }

  /** Another process (`desk` next to the desktop app) may have written the file since we read it. */
  private async reloadIfChanged(u: Unlocked): Promise<void> {
    const text = await readVaultText(this.path)
    if (text === this.diskText) return
    const doc = await parseChecked(text, this.path)
    let keys: Map<string, Uint8Array>
    try {
      keys = this.decryptAll(doc, u.master)
    } catch (e) {
      if ((e as { code?: string }).code === 'PassphraseIncorrect') {
        this.lock('passphraseChanged')
        throw vaultError('VaultChangedOnDisk', 'the vault passphrase was changed by another process; unlock again')
      }
      return withBackupAdvice(e, this.path)
    }
    try {
      await this.selfTest(keys)
    } catch (e) {
      keys.forEach((k) => k.fill(0))
      throw e
    }
    for (const k of u.keys.values()) k.fill(0)
    u.keys = keys
    this.doc = doc
    this.diskText = text
    this.emit({ type: 'accountsChanged' })
  }

  private assertAddressFree(doc: Omit<VaultDoc, 'mac'>, address: Address, allowWatchOnlyOwner: boolean): OwnerRecord | undefined {
    for (const o of doc.owners) {
      for (const g of o.agents) {
        if (lc(g.address) === lc(address)) throw vaultError('KeyInUse', `${address} is already agent key ${g.slot} of ${o.address}`, { address })
      }
    }
    const owner = doc.owners.find((o) => lc(o.address) === lc(address))
    if (owner && (owner.key !== null || !allowWatchOnlyOwner)) throw vaultError('AccountExists', `${address} is already in the vault`, { address })
    return owner
  }

  /** Adds an owner key (or gives a watch-only account its key). Consumes `key`: it is zeroed or kept by the vault. */
  private addOwnerKey(key: Uint8Array, label: string | undefined): Promise<Address> {
    const address = addressOfKey(key)
    return this.mutate((doc, u) => {
      let owner: OwnerRecord | undefined
      try {
        owner = this.assertAddressFree(doc, address, true)
      } catch (e) {
        key.fill(0)
        throw e
      }
      const sealed = sealRecord(u.master, key, aad.owner(address))
      if (owner) {
        owner.key = sealed
        if (label !== undefined && label.trim() !== '') owner.label = cleanLabel(label, owner.label)
      } else {
        doc.owners.push({ address, label: cleanLabel(label, shortAddress(address)), createdAt: nowIso(this.now), key: sealed, agents: [] })
      }
      return { doc, value: address, addKeys: new Map([[lc(address), key]]) }
    }).catch((e: unknown) => {
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
    return this.mutate((doc) => {
      this.assertAddressFree(doc, a, false)
      doc.owners.push({ address: a, label: cleanLabel(label, shortAddress(a)), createdAt: nowIso(this.now), key: null, agents: [] })
      return { doc, value: a }
    })
  }

  async setLabel(address: string, label: string): Promise<void> {
    const a = parseAddress(address)
    return this.mutate((doc) => {
      const owner = doc.owners.find((o) => lc(o.address) === lc(a))
      if (!owner) throw vaultError('AccountNotInVault', `${a} is not an account in the vault`)
      owner.label = cleanLabel(label, shortAddress(owner.address))
      return { doc, value: undefined }
    })
  }

  /** Removes an owner account with its key and agent keys (the previous file stays in `.bak`). */
  async removeAccount(address: string): Promise<void> {
    const a = parseAddress(address)
    return this.mutate((doc) => {
      const owner = doc.owners.find((o) => lc(o.address) === lc(a))
      if (!owner) throw vaultError('AccountNotInVault', `${a} is not an account in the vault`)
      doc.owners = doc.owners.filter((o) => o !== owner)
      const at = nowIso(this.now)
      for (const g of owner.agents) doc.retiredAgents.push({ owner: owner.address, slot: g.slot, address: g.address, retiredAt: at })
      return { doc, value: undefined, dropKeys: [lc(owner.address), ...owner.agents.map((g) => lc(g.address))] }
    })
  }

  /**
   * Generates an agent key for (owner, slot) and returns its address only. An occupied slot is
   * `AgentSlotOccupied` unless `replace` is set, which retires the previous key in the same write.
   */
  async generateAgentKey(owner: Address, slot: AgentSlot, options: { replace?: boolean } = {}): Promise<Address> {
    if (!isAgentSlot(slot)) throw vaultError('InvalidAgentSlot', 'agent slot must be 0, 1, 2 or 3')
    return this.mutate((doc, u) => {
      const o = doc.owners.find((x) => lc(x.address) === lc(owner))
      if (!o) throw vaultError('AccountNotInVault', `${owner} is not an account in the vault`)
      const existing = o.agents.find((g) => g.slot === slot)
      if (existing && !options.replace) throw vaultError('AgentSlotOccupied', `slot ${slot} of ${o.address} already holds agent ${existing.address}; retire it first`, { slot })
      const key = generatePrivateKey()
      const address = addressOfKey(key)
      try {
        this.assertAddressFree(doc, address, false)
      } catch (e) {
        key.fill(0)
        throw e
      }
      const at = nowIso(this.now)
      if (existing) {
        o.agents = o.agents.filter((g) => g !== existing)
        doc.retiredAgents.push({ owner: o.address, slot, address: existing.address, retiredAt: at })
      }
      o.agents.push({ slot, address, createdAt: at, key: sealRecord(u.master, key, aad.agent(o.address, slot, address)) })
      return { doc, value: address, addKeys: new Map([[lc(address), key]]), dropKeys: existing ? [lc(existing.address)] : [] }
    })
  }

  /** Deletes the agent key of (owner, slot); its address is kept in `retiredAgents()`. Returns that address. */
  async retireAgentKey(owner: Address, slot: AgentSlot): Promise<Address> {
    if (!isAgentSlot(slot)) throw vaultError('InvalidAgentSlot', 'agent slot must be 0, 1, 2 or 3')
    return this.mutate((doc) => {
      const o = doc.owners.find((x) => lc(x.address) === lc(owner))
      if (!o) throw vaultError('AccountNotInVault', `${owner} is not an account in the vault`)
      const existing = o.agents.find((g) => g.slot === slot)
      if (!existing) throw vaultError('AgentKeyNotFound', `no agent key in slot ${slot} of ${o.address}`, { slot })
      o.agents = o.agents.filter((g) => g !== existing)
      doc.retiredAgents.push({ owner: o.address, slot, address: existing.address, retiredAt: nowIso(this.now) })
      return { doc, value: existing.address, dropKeys: [lc(existing.address)] }
    })
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
      const reseal = (address: Address, recordAad: string): SealedRecord => {
        const key = u.keys.get(lc(address))
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
    if (!(await this.verifyPassphrase(options.vaultPassphrase))) throw vaultError('PassphraseIncorrect', 'wrong vault passphrase; nothing exported')
    const key = this.requireUnlocked().keys.get(lc(a))
    if (!key) {
      const owner = this.findOwner(a)
      if (owner && !owner.key) throw vaultError('WatchOnlyAccount', `${a} is watch-only: there is no key to export`)
      throw vaultError('AccountNotInVault', `${a} has no key in the vault`)
    }
    return encryptKeystore(key, options.keystorePassphrase, options.kdf)
  }

  private requireUnlocked(): Unlocked {
    if (!this.unlocked) throw vaultError('VaultLocked', 'the vault is locked; unlock it first')
    return this.unlocked
  }
}
