import { spawnSync } from 'node:child_process'
import { promises as fs } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DEV_ADDRESS_0, DEV_ADDRESS_1, DEV_KEY_0 } from './testing/fixtures'
import { fileChecksum, type VaultDoc } from './vault-file'
import { Vault, vaultPath, type VaultOptions } from './vault'

const LOW = { n: 1024, r: 8, p: 1 }
const PASS = 'correct horse battery staple'
const OTHER = 'another long passphrase 42'
let dir: string
let path: string

beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'vault-test-'))
  path = vaultPath(dir)
})
afterEach(async () => {
  vi.useRealTimers()
  await fs.rm(dir, { recursive: true, force: true })
})

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toMatchObject({ name: 'DeskError', code })
}

const create = (extra: Partial<VaultOptions> = {}) => Vault.create({ path, passphrase: PASS, scrypt: LOW, autoLockMs: null, ...extra })
const owner = (a: string) => ({ owner: a as `0x${string}`, role: 'owner' as const })

describe('damage and crashes', () => {
  async function vaultWithKey(): Promise<string> {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0, 'main')
    v.lock()
    return fs.readFile(path, 'utf8')
  }

  it('a truncated file is VaultCorrupt at open', async () => {
    const text = await vaultWithKey()
    await fs.writeFile(path, text.slice(0, text.length / 2))
    await expectCode(Vault.open({ path }), 'VaultCorrupt')
  })

  /** A deliberate edit recomputes the unkeyed checksum, as anyone can; only the keyed MAC catches it. */
  const withFreshChecksum = (text: string): string => {
    const doc = JSON.parse(text) as VaultDoc & { checksum?: string }
    delete doc.checksum
    return JSON.stringify({ ...doc, checksum: fileChecksum(doc) })
  }

  it('an edited label is damage at open; with its checksum recomputed, the MAC catches it at unlock; the file is left as is', async () => {
    const text = await vaultWithKey()
    await fs.writeFile(path, text.replace('"main"', '"mail"'))
    await expect(Vault.open({ path })).rejects.toMatchObject({ code: 'VaultCorrupt', details: { damage: 'checksum' } })
    const forged = withFreshChecksum(text.replace('"main"', '"mail"'))
    await fs.writeFile(path, forged)
    const v = await Vault.open({ path })
    await expect(v.unlock(PASS)).rejects.toMatchObject({ code: 'VaultCorrupt', details: { damage: 'mac' } })
    expect(v.isUnlocked).toBe(false)
    expect(await fs.readFile(path, 'utf8')).toBe(forged)
  })

  it('a flipped bit in a key record is VaultCorrupt; one in the shape is VaultCorrupt at open', async () => {
    const text = await vaultWithKey()
    const doc = JSON.parse(text) as { owners: Array<{ key: { ciphertext: string } }>; mac: string }
    const ct = doc.owners[0]!.key.ciphertext
    doc.owners[0]!.key.ciphertext = (ct[0] === '0' ? '1' : '0') + ct.slice(1)
    await fs.writeFile(path, JSON.stringify(doc))
    await expect(Vault.open({ path })).rejects.toMatchObject({ code: 'VaultCorrupt', details: { damage: 'checksum' } })
    // Even past the checksum (recomputed) and the MAC (the record is authenticated by GCM, not the MAC), it does not decrypt.
    await fs.writeFile(path, withFreshChecksum(JSON.stringify(doc)))
    await expectCode((await Vault.open({ path })).unlock(PASS), 'VaultCorrupt')
    await fs.writeFile(path, text.replace('"version": 1', '"version": 3'))
    await expectCode(Vault.open({ path }), 'VaultCorrupt')
  })

  it('a record moved onto another address does not decrypt', async () => {
    const v = await create()
    await v.importPrivateKey(DEV_KEY_0)
    await v.addWatchOnly(DEV_ADDRESS_1)
    v.lock()
    const doc = JSON.parse(await fs.readFile(path, 'utf8')) as { owners: Array<{ key: unknown }> }
    doc.owners[1]!.key = doc.owners[0]!.key
    await fs.writeFile(path, withFreshChecksum(JSON.stringify(doc)))
    await expectCode((await Vault.open({ path })).unlock(PASS), 'VaultCorrupt')
  })

  const child = (point: string) =>
    spawnSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./testing/crash-child.ts', import.meta.url)), path, PASS, point],
      { encoding: 'utf8', timeout: 60_000 },
    )

  it('a crash between writing the temp file and the rename leaves the old vault intact', async () => {
    const text = await vaultWithKey()
    const r = child('beforeRename')
    expect(r.signal).toBe('SIGKILL')
    expect(await fs.readFile(path, 'utf8')).toBe(text)
    expect((await fs.readdir(dir)).some((n) => n.includes('.tmp-'))).toBe(true)
    const v = await Vault.open({ path })
    expect((await fs.readdir(dir)).some((n) => n.includes('.tmp-'))).toBe(false) // leftovers cleaned
    await v.unlock(PASS)
    expect(v.listAccounts().map((a) => a.address)).toEqual([DEV_ADDRESS_0])
  })

  it('a crash right after the rename leaves the new vault intact', async () => {
    await vaultWithKey()
    const r = child('afterWrite')
    expect(r.signal).toBe('SIGKILL')
    const v = await Vault.open({ path })
    await v.unlock(PASS)
    expect(v.listAccounts().map((a) => a.address)).toEqual([DEV_ADDRESS_0, DEV_ADDRESS_1])
  })

  it('a failed write reports VaultWriteFailed and changes nothing in memory or on disk', async () => {
    let failing = false
    const v = await create({ writeHooks: { beforeRename: () => (failing ? Promise.reject(new Error('disk full')) : undefined) } })
    failing = true
    const before = await fs.readFile(path, 'utf8')
    await expectCode(v.addWatchOnly(DEV_ADDRESS_1), 'VaultWriteFailed')
    expect(v.listAccounts()).toEqual([])
    expect(await fs.readFile(path, 'utf8')).toBe(before)
    expect((await fs.readdir(dir)).some((n) => n.includes('.tmp-'))).toBe(false)
  })

  it('locking while a change is being written keeps the change on disk and no key in memory', async () => {
    let armed = false
    let v: Vault | null = null
    v = await create({ writeHooks: { beforeRename: () => void (armed && v?.lock()) } })
    armed = true
    expect(await v.importPrivateKey(DEV_KEY_0)).toBe(DEV_ADDRESS_0)
    expect(v.isUnlocked).toBe(false)
    expect((v as unknown as { unlocked: unknown }).unlocked).toBeNull()
    const r = await Vault.open({ path })
    await r.unlock(PASS)
    expect(r.canSign(owner(DEV_ADDRESS_0))).toBe(true)
  })

  it('reload() shows accounts another process added, locked or unlocked', async () => {
    const writer = await create()
    const locked = await Vault.open({ path })
    const unlocked = await Vault.open({ path, autoLockMs: null })
    await unlocked.unlock(PASS)
    await writer.importPrivateKey(DEV_KEY_0, 'added elsewhere')
    expect(locked.listAccounts()).toEqual([])
    await locked.reload()
    await unlocked.reload()
    expect(locked.listAccounts().map((a) => a.label)).toEqual(['added elsewhere'])
    expect(unlocked.canSign(owner(DEV_ADDRESS_0))).toBe(true)
  })

  it('changes made by another process are merged, not overwritten', async () => {
    const a = await create()
    const b = await Vault.open({ path, autoLockMs: null })
    await b.unlock(PASS)
    await a.importPrivateKey(DEV_KEY_0, 'from A')
    await b.addWatchOnly(DEV_ADDRESS_1, 'from B')
    expect(b.listAccounts().map((x) => x.label)).toEqual(['from A', 'from B'])
    expect(b.canSign(owner(DEV_ADDRESS_0))).toBe(true)
    await a.changePassphrase(PASS, OTHER)
    await expectCode(b.addWatchOnly('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'), 'VaultChangedOnDisk')
    expect(b.isUnlocked).toBe(false)
  })
})
