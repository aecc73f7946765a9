/** Secrets named by the desk (a file main reads itself, or a value typed at its hidden prompt). */
import { promises as fs } from 'node:fs'
import type { CliSecret } from '../../../contract/types'
import { DeskError } from '../../errors/desk-error'

/** Secret files are small; anything bigger is a mistake (wrong file), not a passphrase. */
const MAX_SECRET_FILE_BYTES = 64 * 1024

/** The secret's text (a file's content without one trailing newline). Never logged. */
export async function readSecret(ref: CliSecret, what: string): Promise<string> {
  if ('value' in ref) return ref.value
  const path = ref.file
  let buf: Buffer
  try {
    const st = await fs.stat(path)
    if (!st.isFile() || st.size > MAX_SECRET_FILE_BYTES) throw new DeskError('SecretFileInvalid', `${what} file ${path} is not a small regular file`)
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
