/**
 * The vault file as this process last saw it, and its decrypted keys while unlocked. Every read
 * and write of the file passes one queue, so changes apply one at a time, each on top of whatever
 * another process (`desk` next to the desktop app) wrote since.
 */
import { vaultError } from './errors'
import type { DocChange, VaultBody } from './account-edits'
import { writeFileAtomic, type AtomicWriteHooks } from './atomic-write'
import { decryptKeyRing, selfTestKeys, zeroKeys, type KeyRing } from './key-ring'
import { deriveMasterKey, fileMac } from './record-cipher'
import type { LockReason, VaultEvent } from './types'
import { canonicalBody, serializeVault, type VaultDoc } from './vault-file'
import { parseChecked, readVaultDoc, readVaultText, withBackupAdvice } from './vault-reader'

export interface Unlocked {
  master: Buffer
  /** Decrypted keys by lowercase address. Zeroed on lock. */
  keys: KeyRing
}

export interface VaultStateHooks {
  /** Test hook into the atomic write (crash simulation). */
  writeHooks: AtomicWriteHooks | undefined
  /** Runs inside an unlock, before the `unlocked` event: the vault starts its timers there. */
  onUnlocked: () => void
  /** The whole vault locks (timers included) when another process changed the passphrase. */
  lock: (reason: LockReason) => void
}

export class VaultState {
  private current: VaultDoc
  private diskText: string
  private keys: Unlocked | null = null
  private readonly listeners = new Set<(e: VaultEvent) => void>()
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    readonly path: string,
    doc: VaultDoc,
    diskText: string,
    private readonly hooks: VaultStateHooks,
  ) {
    this.current = doc
    this.diskText = diskText
  }

  get doc(): VaultDoc {
    return this.current
  }

  get unlocked(): Unlocked | null {
    return this.keys
  }

  onEvent(listener: (event: VaultEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit(event: VaultEvent): void {
    for (const l of this.listeners) {
      try {
        l(event)
      } catch {
        // A faulty listener must not break locking.
      }
    }
  }

  /** A vault just created holds its master key and no keys yet. */
  adoptNew(master: Buffer): void {
    this.keys = { master, keys: new Map() }
  }

  /** Zeroes every decrypted key and the master key; false when already locked. */
  zeroAll(): boolean {
    const u = this.keys
    if (!u) return false
    this.keys = null
    zeroKeys(u.keys.values())
    u.keys.clear()
    u.master.fill(0)
    return true
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => undefined)
    return run
  }

  /** Decrypts and self-tests every key; a wrong passphrase is `PassphraseIncorrect` and changes nothing. */
  unlock(passphrase: string): Promise<void> {
    return this.serial(async () => {
      // Damage is found here, before the (costly) derivation: it never reads as a wrong passphrase.
      const { text, doc } = await readVaultDoc(this.path)
      const master = await deriveMasterKey(passphrase, Buffer.from(doc.kdf.salt, 'hex'), { n: doc.kdf.n, r: doc.kdf.r, p: doc.kdf.p })
      let keys: KeyRing
      try {
        keys = decryptKeyRing(doc, master, this.path)
        await selfTestKeys(keys)
      } catch (e) {
        master.fill(0)
        return withBackupAdvice(e, this.path)
      }
      const previous = this.keys
      this.keys = { master, keys }
      if (previous) {
        zeroKeys(previous.keys.values())
        previous.master.fill(0)
      }
      this.current = doc
      this.diskText = text
      this.hooks.onUnlocked()
      this.emit({ type: 'unlocked' })
    })
  }

  /** Locked: re-reads addresses and labels. Unlocked: verifies and decrypts the new content. */
  reload(): Promise<void> {
    return this.serial(async () => {
      if (this.keys) return this.reloadIfChanged(this.keys)
      const text = await readVaultText(this.path)
      if (text === this.diskText) return
      this.current = await parseChecked(text, this.path)
      this.diskText = text
      this.emit({ type: 'accountsChanged' })
    })
  }

  /** Runs one change: re-read the file if another process changed it, apply, write atomically. */
  mutate<T>(change: (doc: VaultBody, u: Unlocked) => DocChange<T>): Promise<T> {
    return this.serial(async () => {
      if (!this.keys) throw vaultError('VaultLocked', 'the vault is locked; unlock it first')
      await this.reloadIfChanged(this.keys)
      const u = this.keys
      const { mac: _mac, ...current } = structuredClone(this.current)
      const result = change(current, u)
      const master = result.newMaster ?? u.master
      const next: VaultDoc = { ...result.doc, mac: fileMac(master, canonicalBody(result.doc)) }
      const text = serializeVault(next)
      try {
        await writeFileAtomic(this.path, text, { mode: 0o600, backup: true, hooks: this.hooks.writeHooks })
      } catch (e) {
        result.addKeys?.forEach((k) => k.fill(0))
        result.newMaster?.fill(0)
        throw vaultError('VaultWriteFailed', `could not write the vault file ${this.path}: ${(e as Error).message}; nothing changed`, {
          path: this.path,
        })
      }
      this.current = next
      this.diskText = text
      if (this.keys !== u) {
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

  /** Another process may have written the file since we read it. */
  private async reloadIfChanged(u: Unlocked): Promise<void> {
    const text = await readVaultText(this.path)
    if (text === this.diskText) return
    const doc = await parseChecked(text, this.path)
    let keys: KeyRing
    try {
      keys = decryptKeyRing(doc, u.master, this.path)
    } catch (e) {
      if ((e as { code?: string }).code === 'PassphraseIncorrect') {
        this.hooks.lock('passphraseChanged')
        throw vaultError('VaultChangedOnDisk', 'the vault passphrase was changed by another process; unlock again')
      }
      return withBackupAdvice(e, this.path)
    }
    try {
      await selfTestKeys(keys)
    } catch (e) {
      keys.forEach((k) => k.fill(0))
      throw e
    }
    zeroKeys(u.keys.values())
    u.keys = keys
    this.current = doc
    this.diskText = text
    this.emit({ type: 'accountsChanged' })
  }
}
