import { DeskCallError } from '../desk-call-error'

/** Codes that mean the operator chose not to sign (or let the dialog expire): nothing was signed, nothing failed. */
export const DECLINE_CODES: readonly string[] = ['ConfirmationDeclined', 'ConfirmationExpired', 'ConfirmationCancelled']

const codeOf = (e: unknown): string | null =>
  e instanceof DeskCallError
    ? e.code
    : e && typeof e === 'object' && typeof (e as { code?: unknown }).code === 'string'
      ? (e as { code: string }).code
      : null

export function isDecline(e: unknown): boolean {
  const c = codeOf(e)
  return c !== null && DECLINE_CODES.includes(c)
}

/** The title a failed action's notice carries: a decline is neutral, an unknown outcome is not a failure (yet). */
export function errorTitle(e: unknown, verb: string): string {
  if (isDecline(e)) return 'Declined — nothing was signed'
  const c = codeOf(e)
  if (c === 'TradeOutcomeUnknown') return `${verb}: outcome unknown when sent — its final state is below`
  if (c === 'PassphraseIncorrect') return `${verb} not signed: wrong passphrase`
  return `${verb} failed`
}
