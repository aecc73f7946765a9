/**
 * Passphrase policy for the vault (and for exported keystores): a minimum length, and a
 * rejection of passphrases that are long but guessable (one repeated character, a keyboard or
 * digit run, a common password padded out, too few distinct characters).
 */
import { vaultError } from './errors'

export interface PassphrasePolicy {
  minLength: number
  minDistinctChars: number
}

export const DEFAULT_PASSPHRASE_POLICY: PassphrasePolicy = { minLength: 12, minDistinctChars: 6 }

const COMMON = [
  'password',
  'passw0rd',
  'passphrase',
  'qwerty',
  'azerty',
  'letmein',
  'welcome',
  'admin',
  'iloveyou',
  'monkey',
  'dragon',
  'football',
  'baseball',
  'master',
  'sunshine',
  'princess',
  'trustno1',
  'changeme',
  'secret',
  'treasury',
  'ethereum',
  'bitcoin',
]
const RUNS = ['abcdefghijklmnopqrstuvwxyz', '0123456789', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm', '1234567890']

export type PassphraseVerdict = { ok: true } | { ok: false; reason: string }

function isRunOrRepeat(s: string): boolean {
  if (s.length < 3) return false
  for (const run of RUNS) {
    // Runs wrap around ("1234567890123" continues the digit run).
    const cyclic = run.repeat(Math.ceil(s.length / run.length) + 1)
    if (cyclic.includes(s) || [...cyclic].reverse().join('').includes(s)) return true
  }
  // The whole passphrase is one short unit repeated ("abcabcabcabc", "1212121212").
  for (let unit = 1; unit <= s.length / 2; unit++) {
    if (s.length % unit === 0 && s.slice(0, unit).repeat(s.length / unit) === s) return true
  }
  return false
}

export function checkPassphrase(passphrase: string, policy: PassphrasePolicy = DEFAULT_PASSPHRASE_POLICY): PassphraseVerdict {
  const chars = [...passphrase.normalize('NFKC')]
  if (chars.length < policy.minLength) return { ok: false, reason: `a passphrase needs at least ${policy.minLength} characters` }
  const lower = chars.join('').toLowerCase()
  if (new Set(chars).size < policy.minDistinctChars)
    return { ok: false, reason: `a passphrase needs at least ${policy.minDistinctChars} different characters` }
  if (isRunOrRepeat(lower)) return { ok: false, reason: 'a passphrase must not be a keyboard run, a sequence or a repeated pattern' }
  // A common word padded with digits or punctuation is still a common word.
  const letters = lower.replace(/[^a-z]/g, '')
  const stripped = lower.replace(/[^a-z0-9]/g, '')
  for (const w of COMMON) {
    const rest = stripped.startsWith(w) ? stripped.slice(w.length) : null
    if (letters === w || (rest !== null && (rest.length <= 4 || isRunOrRepeat(rest)))) {
      return { ok: false, reason: 'a passphrase must not be a common password' }
    }
  }
  return { ok: true }
}

/** Throws `PassphraseWeak` with the reason when the policy rejects it. */
export function assertPassphraseStrong(passphrase: string, policy: PassphrasePolicy = DEFAULT_PASSPHRASE_POLICY): void {
  const verdict = checkPassphrase(passphrase, policy)
  if (!verdict.ok) throw vaultError('PassphraseWeak', verdict.reason)
}
