/** Secrets named by the desk (a file main reads itself, or a value typed at its hidden prompt). */
import type { CliSecret } from '../../../contract/types'
import { readSecretFile } from '../../vault/secret-file'

/** The secret's text (a file's content without one trailing newline). Never logged. */
export async function readSecret(ref: CliSecret, what: string): Promise<string> {
  if ('value' in ref) return ref.value
  return readSecretFile(ref.file, what)
}
