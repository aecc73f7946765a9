/**
 * Every failure the core reports is a DeskError: a stable `code`, a sentence for the operator,
 * and optional plain-data `details`. It serialises to plain data so it can cross IPC or the
 * web host unchanged (never a stack trace).
 */
export type DeskErrorDetails = Record<string, string | number | boolean | null>

export interface DeskErrorData {
  code: string
  message: string
  details?: DeskErrorDetails
}

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
