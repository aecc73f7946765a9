import type { InfoClient } from '../exchange/info/client'
import type { StreamPool } from '../streams/pool'
import type { LastKnownState } from './last-known'
import type { MarketDataCache } from './market-data'
import type { JournalWrites } from './write-marks'

/** Previews and writes refuse account data older than this (ms). */
export const DEFAULT_DATA_MAX_AGE_MS = 30_000

export interface LiveReadsOptions {
  info: InfoClient
  pool: StreamPool | null
  market: MarketDataCache
  now: () => number
  /** account data older than this is re-read through /info, and refused when that fails (default 30 s) */
  maxAgeMs?: number
  /** assets, markets and minimums are kept this long (default 5 min; they change rarely) */
  staticTtlMs?: number
  /** an account's existence, status and credit whitelist are kept this long (default 60 s) */
  accountTtlMs?: number
  /** Last known state of this network: the credit whitelist is served from it before the first /info answer. */
  lastKnown?: LastKnownState
  /** Journal changes of this network: state older than an account's latest write is not used. */
  writes?: JournalWrites
  /** Agent slots picked for signing are kept this long (default 5 min) unless an agent write of the owner drops them first. */
  signerAgentsTtlMs?: number
  /** How long a write's verification waits for a stream frame before it reads /info (default 700 ms). */
  frameWaitMs?: number
}
