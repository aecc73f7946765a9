/**
 * Feedback while the operator types a new vault passphrase. It mirrors the vault's policy
 * (main/core/vault/passphrase-policy.ts: 12+ characters, 6+ distinct, no runs, repeats or
 * common words), which stays the authority: main refuses a weak passphrase with PassphraseWeak.
 */

export interface Strength {
  /** 0 (refused) to 4 (strong). */
  score: 0 | 1 | 2 | 3 | 4
  label: 'too weak' | 'weak' | 'fair' | 'good' | 'strong'
  acceptable: boolean
  hint: string
}

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

function isRunOrRepeat(s: string): boolean {
  if (s.length < 3) return false
  for (const run of RUNS) if (run.includes(s) || [...run].reverse().join('').includes(s)) return true
  for (let unit = 1; unit <= s.length / 2; unit++) if (s.length % unit === 0 && s.slice(0, unit).repeat(s.length / unit) === s) return true
  return false
}

export function passphraseStrength(passphrase: string): Strength {
  const chars = [...passphrase.normalize('NFKC')]
  const lower = chars.join('').toLowerCase()
  const refuse = (hint: string): Strength => ({ score: 0, label: 'too weak', acceptable: false, hint })
  if (chars.length < 12) return refuse(`at least 12 characters (${chars.length} so far)`)
  if (new Set(chars).size < 6) return refuse('at least 6 different characters')
  if (isRunOrRepeat(lower)) return refuse('not a keyboard run, a sequence or a repeated pattern')
  const letters = lower.replace(/[^a-z]/g, '')
  const stripped = lower.replace(/[^a-z0-9]/g, '')
  for (const w of COMMON) {
    const rest = stripped.startsWith(w) ? stripped.slice(w.length) : null
    if (letters === w || (rest !== null && (rest.length <= 4 || isRunOrRepeat(rest)))) return refuse('not a common password')
  }
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((re) => re.test(passphrase)).length
  const points = (chars.length >= 16 ? 1 : 0) + (chars.length >= 24 ? 1 : 0) + (classes >= 3 ? 1 : 0) + (new Set(chars).size >= 12 ? 1 : 0)
  const score = Math.min(4, Math.max(1, points)) as 1 | 2 | 3 | 4
  const label = (['weak', 'weak', 'fair', 'good', 'strong'] as const)[score]
  return { score, label, acceptable: true, hint: score < 3 ? 'acceptable; longer (several words) is stronger' : 'good' }
}
