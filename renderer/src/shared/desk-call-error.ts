import type { ErrorData } from '../../../main/contract/types'

/** A failed call, with the service's or the app's error code kept for display. */
export class DeskCallError extends Error {
  readonly code: string
  readonly details: ErrorData['details']
  constructor(error: ErrorData) {
    super(error.message)
    this.code = error.code
    this.details = error.details
  }
}
