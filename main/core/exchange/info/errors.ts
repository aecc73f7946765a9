import { DeskError } from '../../errors/desk-error'

/**
 * A failed /info read. `code` is the service's own code when it sent one (`InvalidFillsQuery`,
 * `HistoryWindowExceeded`, `UnsupportedInfoType`, `RateLimited`...) or a local one:
 * `InfoInvalidParams` / `InfoRequestTooLarge` (never sent), `InfoUnreachable`, `InfoTimeout`,
 * `InfoServerError`, `InfoMalformedResponse`. Reads are safe to repeat, so `retryable` only says
 * whether waiting and asking again can help.
 */
export class InfoError extends DeskError {
  constructor(
    code: string,
    message: string,
    details: { infoType: string; httpStatus?: number; inBand?: boolean; retryable?: boolean; retryAfterMs?: number; path?: string },
  ) {
    const d: Record<string, string | number | boolean> = { infoType: details.infoType, retryable: details.retryable ?? false }
    if (details.httpStatus !== undefined) d.httpStatus = details.httpStatus
    if (details.inBand !== undefined) d.inBand = details.inBand
    if (details.retryAfterMs !== undefined) d.retryAfterMs = details.retryAfterMs
    if (details.path !== undefined) d.path = details.path
    super(code, message, d)
    this.name = 'InfoError'
  }

  get retryable(): boolean {
    return this.details?.retryable === true
  }
}

/** "Rate limited, retry after 250ms" -> 250; null when no delay is stated. */
export function parseRetryAfterMs(message: unknown): number | null {
  if (typeof message !== 'string') return null
  const m = /retry after\s+(\d+)\s*ms/i.exec(message)
  if (!m) return null
  const n = Number(m[1])
  return Number.isSafeInteger(n) ? n : null
}
