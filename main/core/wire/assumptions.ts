/**
 * Assumptions about the service that its API references leave "not shown", where the desk and
 * the sandbox must agree. Each lives here once; docs/assumptions.md lists every assumption and
 * the module that holds it.
 */

/** A mark older than this (by its `source_ts_ms`) counts as stale; the spec names no figure. */
export const MARK_STALE_AFTER_MS = 60_000

/** Request parameter naming the owner in the account reads whose parameter names are not shown. */
export const OWNER_PARAM = 'user' as const
