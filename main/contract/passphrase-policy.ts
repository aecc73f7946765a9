/**
 * The passphrase-strength rule, in one place for both sides: the vault enforces it (and refuses a
 * weak passphrase with PassphraseWeak, main/core/vault/passphrase-policy.ts), the renderer grades
 * the passphrase being typed with it (renderer/src/features/session/passphrase-strength.ts).
 * A minimum length, and a rejection of passphrases that are long but guessable (one repeated
 * character, a keyboard or digit run, a common password padded out, too few distinct characters).
 */

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

/** Which part of the rule a passphrase fails (each side words it its own way). */
export type PassphraseProblem =
  /** `length`: its length in characters (after NFKC normalisation). */
  { rule: 'length'; min: number; length: number } | { rule: 'distinct'; min: number } | { rule: 'pattern' } | { rule: 'common' }

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

/** The first part of the rule the passphrase fails, or null when it passes. */
export function passphraseProblem(passphrase: string, policy: PassphrasePolicy = DEFAULT_PASSPHRASE_POLICY): PassphraseProblem | null {
  const chars = [...passphrase.normalize('NFKC')]
  if (chars.length < policy.minLength) return { rule: 'length', min: policy.minLength, length: chars.length }
  const lower = chars.join('').toLowerCase()
  if (new Set(chars).size < policy.minDistinctChars) return { rule: 'distinct', min: policy.minDistinctChars }
  if (isRunOrRepeat(lower)) return { rule: 'pattern' }
  // A common word padded with digits or punctuation is still a common word.
  const letters = lower.replace(/[^a-z]/g, '')
  const stripped = lower.replace(/[^a-z0-9]/g, '')
  for (const w of COMMON) {
    const rest = stripped.startsWith(w) ? stripped.slice(w.length) : null
    if (letters === w || (rest !== null && (rest.length <= 4 || isRunOrRepeat(rest)))) return { rule: 'common' }
  }
  return null
}

/** The rule's verdict, with the reason main gives (PassphraseWeak) when it fails. */
export function checkPassphrase(passphrase: string, policy: PassphrasePolicy = DEFAULT_PASSPHRASE_POLICY): PassphraseVerdict {
  const problem = passphraseProblem(passphrase, policy)
  if (problem === null) return { ok: true }
  switch (problem.rule) {
    case 'length':
      return { ok: false, reason: `a passphrase needs at least ${problem.min} characters` }
    case 'distinct':
      return { ok: false, reason: `a passphrase needs at least ${problem.min} different characters` }
    case 'pattern':
      return { ok: false, reason: 'a passphrase must not be a keyboard run, a sequence or a repeated pattern' }
    case 'common':
      return { ok: false, reason: 'a passphrase must not be a common password' }
  }
}
