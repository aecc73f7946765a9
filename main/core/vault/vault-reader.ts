/**
 * Reading the vault file from disk. Damage is reported with the state of the `.bak` copy next to
 * it, so the operator learns at once whether there is a way back.
 */
import { promises as fs } from 'node:fs'
import { VaultError, vaultError } from './errors'
import { hasChecksum, parseVaultText, type VaultDoc } from './vault-file'

/** What the `.bak` copy next to a damaged vault is worth: the operator's way back. */
export type BackupState = 'intact' | 'unverified' | 'damaged' | 'missing'

export async function fileExists(path: string): Promise<boolean> {
  return fs.stat(path).then(
    () => true,
    () => false,
  )
}

export async function readVaultText(path: string): Promise<string> {
  try {
    return await fs.readFile(path, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      const bak = await fileExists(`${path}.bak`)
      throw vaultError(
        'VaultNotFound',
        `no vault at ${path}${bak ? ` (a backup exists at ${path}.bak)` : '; create one with `desk keys init`'}`,
        {
          path,
        },
      )
    }
    throw vaultError('VaultCorrupt', `cannot read the vault file ${path}: ${(e as Error).message}`, { path, damage: 'unreadable' })
  }
}

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
    : {
        state: 'unverified',
        advice: `The previous version is kept as ${bak} (written before checksums existed, so it could not be verified).`,
      }
}

/** Adds the state of the backup copy to a damage report; every other error passes unchanged. */
export async function withBackupAdvice(e: unknown, path: string): Promise<never> {
  if (!(e instanceof VaultError) || e.code !== 'VaultCorrupt') throw e
  const backup = await inspectBackup(path)
  throw vaultError('VaultCorrupt', `${e.message}. ${backup.advice}`, {
    ...e.details,
    path,
    backup: `${path}.bak`,
    backupState: backup.state,
  })
}

/** Checks file text (checksum included) before anything derives a key from it. */
export async function parseChecked(text: string, path: string): Promise<VaultDoc> {
  try {
    return parseVaultText(text, path)
  } catch (e) {
    return withBackupAdvice(e, path)
  }
}

export async function readVaultDoc(path: string): Promise<{ text: string; doc: VaultDoc }> {
  const text = await readVaultText(path)
  return { text, doc: await parseChecked(text, path) }
}
