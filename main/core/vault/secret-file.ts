/**
 * Reading a secret from a file (a passphrase, a private key): the one reader main and the desk
 * CLI share, so both refuse the same files with the same typed errors.
 */
import { promises as fs } from 'node:fs'
import { DeskError } from '../errors/desk-error'

/** Secret files are small; anything bigger is a mistake (wrong file), not a passphrase. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024

/**
 * The file's text without one trailing newline; the read buffer is zeroed. Never logged.
 * SecretFileUnreadable: missing or unreadable; SecretFileInvalid: not a regular file, over the limit, or empty.
 */
export async function readSecretFile(path: string, what: string): Promise<string> {
  let buf: Buffer
  try {
    const st = await fs.stat(path)
    if (!st.isFile() || st.size > MAX_SECRET_FILE_BYTES)
      throw new DeskError('SecretFileInvalid', `${what} file ${path} is not a small regular file`)
    buf = await fs.readFile(path)
  } catch (e) {
    if (e instanceof DeskError) throw e
    throw new DeskError('SecretFileUnreadable', `cannot read the ${what} file ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`)
  }
  const text = buf.toString('utf8').replace(/\r?\n$/, '')
  buf.fill(0)
  if (text === '') throw new DeskError('SecretFileInvalid', `the ${what} file ${path} is empty`)
  return text
}
