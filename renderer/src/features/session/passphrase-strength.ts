/**
 * Feedback while the operator types a new vault passphrase. The rule it refuses by is the vault's
 * own (main/contract/passphrase-policy.ts: 12+ characters, 6+ distinct, no runs, repeats or
 * common words), and main stays the authority: it refuses a weak passphrase with PassphraseWeak.
 * Only the grading of acceptable passphrases (weak to strong) is the renderer's.
 */
import { passphraseProblem, type PassphraseProblem } from '../../../../main/contract/passphrase-policy'

export interface Strength {
  /** 0 (refused) to 4 (strong). */
  score: 0 | 1 | 2 | 3 | 4
  label: 'too weak' | 'weak' | 'fair' | 'good' | 'strong'
  acceptable: boolean
  hint: string
}

function refusalHint(problem: PassphraseProblem): string {
  switch (problem.rule) {
    case 'length':
      return `at least ${problem.min} characters (${problem.length} so far)`
    case 'distinct':
      return `at least ${problem.min} different characters`
    case 'pattern':
      return 'not a keyboard run, a sequence or a repeated pattern'
    case 'common':
      return 'not a common password'
  }
}

export function passphraseStrength(passphrase: string): Strength {
  const problem = passphraseProblem(passphrase)
  if (problem !== null) return { score: 0, label: 'too weak', acceptable: false, hint: refusalHint(problem) }
  const chars = [...passphrase.normalize('NFKC')]
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((re) => re.test(passphrase)).length
  const points = (chars.length >= 16 ? 1 : 0) + (chars.length >= 24 ? 1 : 0) + (classes >= 3 ? 1 : 0) + (new Set(chars).size >= 12 ? 1 : 0)
  const score = Math.min(4, Math.max(1, points)) as 1 | 2 | 3 | 4
  const label = (['weak', 'weak', 'fair', 'good', 'strong'] as const)[score]
  return { score, label, acceptable: true, hint: score < 3 ? 'acceptable; longer (several words) is stronger' : 'good' }
}
