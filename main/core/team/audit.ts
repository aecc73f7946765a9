/**
 * The desk's view of a team store: read every row, verify from genesis, and keep following. What
 * it exposes is only what verified; the first broken link is reported, never skipped over.
 */
import { ChainVerifier, type ChainReport, type VerifyOptions } from './chain'
import { logToCsv } from './csv'
import type { LinkStatus, LogSubscription } from './listen'
import type { DeskError } from '../errors/desk-error'
import type { LogEntryRow, TeamStore } from './store'

/** `desk team verify`: the whole chain, checked from genesis. */
export async function verifyStore(store: TeamStore, opts: VerifyOptions = {}): Promise<ChainReport> {
  return new ChainVerifier(opts).add(await store.readLog())
}

export async function exportCsv(store: TeamStore, opts: VerifyOptions = {}): Promise<string> {
  const rows = await store.readLog()
  return logToCsv(rows, await new ChainVerifier(opts).add(rows))
}

export interface FollowHandlers {
  /** called after each batch of new rows is verified (report.ok false: tampering, first link named) */
  onReport(report: ChainReport, rows: LogEntryRow[]): void
  onStatus?(status: LinkStatus, error?: DeskError): void
}

/** Verifies what is there, then every row pushed after it. */
export function followStore(store: TeamStore, handlers: FollowHandlers, opts: VerifyOptions = {}): LogSubscription {
  const verifier = new ChainVerifier(opts)
  let queue = Promise.resolve()
  return store.subscribe({
    onEntries: (rows) => {
      // Verification is async (signature recovery): keep batches in order.
      queue = queue.then(async () => handlers.onReport(await verifier.add(rows), rows))
    },
    onStatus: (s, e) => handlers.onStatus?.(s, e),
  })
}
