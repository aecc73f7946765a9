import { DeskError, type DeskErrorDetails } from '../../errors/desk-error'
import type { Leaf } from './classify'

/**
 * The three ways a write can fail, told apart because the operator's next step differs:
 * - TradeNeverSent: nothing reached the service (safe to try again; a new signature is fine).
 * - TradeRejected: the service answered and refused it (fix the cause, then try again).
 * - TradeFailed: it reached execution and failed there (`failCode`, `advice`); it consumed its
 *   nonce and did not do what was asked.
 * - TradeOutcomeUnknown: it may have executed; the journal reconciles it by cloid. Never
 *   re-sign it under a new nonce.
 */
export class TradeNeverSentError extends DeskError {
  constructor(message: string, details: DeskErrorDetails) {
    super('TradeNeverSent', message, details)
  }
}

export class TradeRejectedError extends DeskError {
  constructor(
    readonly rejectCode: string,
    message: string,
    details: DeskErrorDetails,
  ) {
    super('TradeRejected', message, { ...details, rejectCode })
  }
}

export class TradeOutcomeUnknownError extends DeskError {
  constructor(message: string, details: DeskErrorDetails) {
    super('TradeOutcomeUnknown', message, details)
  }
}

export class TradeFailedError extends DeskError {
  constructor(
    readonly failCode: string,
    readonly advice: string | null,
    readonly leaves: readonly Leaf[],
    message: string,
    details: DeskErrorDetails,
  ) {
    super('TradeFailed', message, { ...details, failCode, advice })
  }
}
