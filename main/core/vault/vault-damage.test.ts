/**
 * Damage reads as damage: an accidental change anywhere in the vault file is reported as
 * `VaultCorrupt` naming the backup copy, before any key derivation; never as a wrong passphrase.
 */
import { promises as fs } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEV_ADDRESS_0, DEV_ADDRESS_1, DEV_KEY_0 } from './testing/fixtures'
import { fileChecksum, parseVaultText, serializeVault, type VaultDoc } from './vault-file'
import { Vault, vaultPath } from './vault'

const LOW = { n: 1024, r: 8, p: 1 }
const PASS = 'correct horse battery staple'
let dir: string
let path: string

beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'vault-damage-'))
  path = vaultPath(dir)
})
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true })
})

/** A vault with every kind of record: owner key, watch-only owner, agent key, retired agent. Locked. */
async function fullVault(): Promise<Buffer> {
  const v = await Vault.create({ path, passphrase: PASS, scrypt: LOW, autoLockMs: null })
  await v.importPrivateKey(DEV_KEY_0, 'treasury main')
  await v.addWatchOnly(DEV_ADDRESS_1, 'watched')
  await v.generateAgentKey(DEV_ADDRESS_0, 0)
  await v.generateAgentKey(DEV_ADDRESS_0, 1)
  await v.retireAgentKey(DEV_ADDRESS_0, 1)
  v.lock()
  return fs.readFile(path)
}

async function codeOf(p: Promise<unknown>): Promise<{ code?: string; message?: string; details?: Record<string, unknown> } | 'resolved'> {
  try {
    await p
    return 'resolved'
  } catch (e) {
    return e as { code?: string; message?: string; details?: Record<string, unknown> }
  }
}

describe('vault damage', () => {
  it('one flipped byte at ANY position of the file is damage (open and unlock), never a wrong passphrase', async () => {
    const intact = await fullVault()
    const text = intact.toString('latin1')
    const verifierAt = text.indexOf('"verifier"')
    const verifierEnd = text.indexOf('}', verifierAt)
    const opened = await Vault.open({ path }) // the app opened it before the damage happened
    const misread: string[] = []
    const where = (i: number) => JSON.stringify(text.slice(Math.max(0, i - 8), i + 8))
    for (let i = 0; i < intact.length; i++) {
      const bytes = Buffer.from(intact)
      bytes[i] = bytes[i]! ^ 0x01
      // The gate both open and unlock pass through, at every position (in memory: fast)...
      try {
        parseVaultText(bytes.toString('utf8'), path)
        misread.push(`parse @${i} ${where(i)}: accepted`)
      } catch (e) {
        if ((e as { code?: string }).code !== 'VaultCorrupt') misread.push(`parse @${i} ${where(i)}: ${String(e)}`)
      }
      // ...and the real file path: every byte of the verifier record, every 8th byte elsewhere.
      if (!((i >= verifierAt && i <= verifierEnd) || i % 8 === 0)) continue
      await fs.writeFile(path, bytes)
      // Started one at a time: a second attempt created up front could reject before it is awaited.
      const attempts: [string, () => Promise<unknown>][] = [['unlock', () => opened.unlock(PASS)]]
      if (i % 32 === 0) attempts.push(['open', () => Vault.open({ path })])
      for (const [how, attempt] of attempts) {
        const e = await codeOf(attempt())
        if (e === 'resolved' || e.code !== 'VaultCorrupt' || e.details?.backupState !== 'intact' || !e.message?.includes(`${path}.bak`)) {
          misread.push(`${how} @${i} ${where(i)}: ${e === 'resolved' ? 'accepted' : `${e.code} ${e.message}`}`)
        }
      }
    }
    expect(misread).toEqual([])
    expect(opened.isUnlocked).toBe(false)
    // The intact file still opens, and a wrong passphrase on it is still a wrong passphrase.
    await fs.writeFile(path, intact)
    await expect(opened.unlock('not the passphrase at all')).rejects.toMatchObject({ code: 'PassphraseIncorrect' })
    await opened.unlock(PASS)
    expect(opened.isUnlocked).toBe(true)
  })

  it('one changed byte in the verifier record (formerly "wrong passphrase") names the damage and the last good copy', async () => {
    await fullVault()
    const text = await fs.readFile(path, 'utf8')
    const doc = JSON.parse(text) as VaultDoc
    const ct = doc.verifier.ciphertext
    const damagedText = text.replace(ct, (ct[0] === 'a' ? 'b' : 'a') + ct.slice(1))
    await fs.writeFile(path, damagedText)
    const e = await codeOf(Vault.open({ path }))
    expect(e).toMatchObject({ code: 'VaultCorrupt', details: { damage: 'checksum', backup: `${path}.bak`, backupState: 'intact' } })
    expect((e as { message: string }).message).toMatch(/last good copy is .*vault\.json\.bak/)
  })

  it('says when the backup is damaged too, or missing', async () => {
    const intact = await fullVault()
    const broken = Buffer.from(intact)
    broken[100] = broken[100]! ^ 0x04
    await fs.writeFile(path, broken)
    await fs.writeFile(`${path}.bak`, broken)
    await expect(Vault.open({ path })).rejects.toMatchObject({ code: 'VaultCorrupt', details: { backupState: 'damaged' } })
    await fs.rm(`${path}.bak`)
    await expect(Vault.open({ path })).rejects.toMatchObject({ code: 'VaultCorrupt', details: { backupState: 'missing' } })
  })

  it('a file written before checksums opens and unlocks, and gains a checksum on its next write', async () => {
    await fullVault()
    const doc = JSON.parse(await fs.readFile(path, 'utf8')) as VaultDoc & { checksum?: string }
    delete doc.checksum
    const legacy = JSON.stringify(doc, null, 2) + '\n'
    await fs.writeFile(path, legacy)
    await fs.rm(`${path}.bak`)
    const v = await Vault.open({ path })
    await v.unlock(PASS)
    expect(v.listAccounts()).toHaveLength(2)
    await v.setLabel(DEV_ADDRESS_1, 'renamed')
    const migrated = JSON.parse(await fs.readFile(path, 'utf8')) as VaultDoc & { checksum?: string }
    expect(migrated.checksum).toBe(fileChecksum(migrated))
    expect(await fs.readFile(`${path}.bak`, 'utf8')).toBe(legacy)
    // Damage now: the backup is the legacy file, offered but not verifiable.
    const bytes = Buffer.from(await fs.readFile(path))
    bytes[60] = bytes[60]! ^ 0x01
    await fs.writeFile(path, bytes)
    await expect(Vault.open({ path })).rejects.toMatchObject({ code: 'VaultCorrupt', details: { backupState: 'unverified' } })
  })

  it('scrypt parameters outside the accepted range are refused before any derivation, even with a valid checksum', async () => {
    await fullVault()
    const doc = JSON.parse(await fs.readFile(path, 'utf8')) as VaultDoc
    // 2^24 x r=8 would need 16 GiB: deriving it would fail slowly or exhaust memory, not return at once.
    doc.kdf.n = 2 ** 24
    await fs.writeFile(path, serializeVault(doc))
    const v = await Vault.open({ path })
    const started = performance.now()
    await expect(v.unlock(PASS)).rejects.toMatchObject({ code: 'KeystoreKdfParamsOutOfRange' })
    expect(performance.now() - started).toBeLessThan(1000)
  })
})
