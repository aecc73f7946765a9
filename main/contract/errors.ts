/**
 * Every failure the core reports is a DeskError: a stable `code`, a sentence for the operator,
 * and optional plain-data `details`. It serialises to plain data so it can cross IPC or the
 * web host unchanged (never a stack trace). It lives in the contract (plain TypeScript, no Node)
 * so the core and the desk CLI throw and catch the one class (`main/core/errors` re-exports it).
 */
import type { ErrorData } from './types'

export type DeskErrorDetails = NonNullable<ErrorData['details']>

export type DeskErrorData = ErrorData

export class DeskError extends Error {
  readonly code: string
  readonly details: DeskErrorDetails | undefined

  constructor(code: string, message: string, details?: DeskErrorDetails) {
    super(message)
    this.name = 'DeskError'
    this.code = code
    this.details = details
  }

  toData(): DeskErrorData {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message }
  }
}

export function isDeskError(value: unknown): value is DeskError {
  return value instanceof DeskError
}

/** Plain-data view of any thrown value; unknown errors never leak their stack or message text. */
export function toErrorData(value: unknown): DeskErrorData {
  if (value instanceof DeskError) return value.toData()
  return { code: 'Internal', message: 'An internal error occurred; see the main-process log.' }
}
