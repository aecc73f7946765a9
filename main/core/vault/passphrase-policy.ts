/**
 * Passphrase policy for the vault (and for exported keystores). The rule itself lives in the
 * contract (main/contract/passphrase-policy.ts), shared with the renderer's strength meter; the
 * vault stays its authority: it refuses a weak passphrase with PassphraseWeak.
 */
import { checkPassphrase, DEFAULT_PASSPHRASE_POLICY, type PassphrasePolicy } from '../../contract/passphrase-policy'
import { vaultError } from './errors'

export { checkPassphrase, DEFAULT_PASSPHRASE_POLICY, type PassphrasePolicy, type PassphraseVerdict } from '../../contract/passphrase-policy'

/** Throws `PassphraseWeak` with the reason when the policy rejects it. */
export function assertPassphraseStrong(passphrase: string, policy: PassphrasePolicy = DEFAULT_PASSPHRASE_POLICY): void {
  const verdict = checkPassphrase(passphrase, policy)
  if (!verdict.ok) throw vaultError('PassphraseWeak', verdict.reason)
}
