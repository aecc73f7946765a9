import { formatAccount } from '../../../../contract/format'
import type { StoredAlertSettings } from '../alert-settings'
import type { SettingsStore } from '../../../config/settings'
import type { EventHub } from '../../../ipc/events'
import type { Journal, NewAlert } from '../../../journal'
import type { AssetMeta, NetworkSession, SessionSource } from '../../../session'

export interface AlertAccount {
  address: string
  label: string
}

/** What the alert service is built from (the rules reach it through RuleContext.d). */
export interface AlertsDeps {
  journal: Journal
  events: EventHub
  /** Hosts hand in their SessionHolder; when it announces new sessions (`onOpened`) their streams are followed at once. */
  sessions: SessionSource & { onOpened?(listener: (s: NetworkSession) => void): () => void }
  settings: SettingsStore
  accounts: () => readonly AlertAccount[]
  /** Earn reads go through the write side, which needs the vault unlocked. */
  vaultUnlocked: () => boolean
  now: () => number
  log?: (line: string) => void
  /** Stream updates are evaluated this long after the last one of a burst (default 300 ms). */
  debounceMs?: number
  /** A balance rise waits this long for the fill frame that may explain it (default 2 s). */
  fundsGraceMs?: number
}

/** Fills and writes this long before a balance rise explain it; fills this far behind the stored check are re-examined after a restart. */
export const FILLS_OVERLAP_MS = 60_000

/** An account as every alert names it: "Name (0x12ab…cdef)" (the shared format; the full address is in `account`). */
export const who = (a: { address: string; label: string }) => formatAccount(a).text

export interface MarketLabel {
  symbol: string
  baseSymbol: string
  quoteSymbol: string
  quantityDecimals: number
}

/** What the alert service keeps about one network session (dropped with it). */
export interface SessionState {
  s: NetworkSession
  attachedAt: number
  offs: (() => void)[]
  /** per account: fill tids already examined this session */
  seen: Map<string, Set<bigint>>
  /** per account: the fills check stored by the previous run (null: none), read at first sight */
  storedCheck: Map<string, number | null>
  /** per account: when a balance rise was first seen, while it waits for its fill frame */
  pendingRise: Map<string, number>
  depositsReadAt: Map<string, number>
  creditFallbackAt: Map<string, number>
  /** agent slots read here because no slot read was known yet (once per account and session) */
  agentsRead: Map<string, { at: number; slots: { slot: number; agent: string | null }[] } | null>
  earnReadAt: Map<string, number>
  /**
   * per balances key: when this session took its funds baseline (the live state at that time).
   * Balances and deposits already there at start are in the baseline: never announced as new.
   */
  fundsBaselineAt: Map<string, number>
  markets: { at: number; value: Promise<Map<number, MarketLabel>> } | null
}

/** What a rule may use of the alert service: its dependencies, settings, recording and reference data. */
export interface RuleContext {
  readonly d: AlertsDeps
  /** The alert settings in force now. */
  settings(): StoredAlertSettings
  closed(): boolean
  /** Records and pushes the alert unless its key already fired; true when it fired now. */
  fire(network: string, key: string, a: Omit<NewAlert, 'network' | 'at' | 'desktopSuppressed'>): boolean
  /** A pass over `user` within `ms`. */
  soon(user: string, ms: number): void
  assets(s: NetworkSession): Promise<Map<number, AssetMeta>>
  marketLabels(st: SessionState): Promise<Map<number, MarketLabel>>
  /** Accounts known to have no credit line, rechecked after a while. */
  readonly notCredit: Map<string, number>
}
