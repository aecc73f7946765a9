import type { InfoClient } from '../exchange/info/client'
import { infoAccountReads, type CreditLine } from './account-reads'
import type { LastKnownState } from './last-known'

export interface CreditWhitelistsOptions {
  info: InfoClient
  now: () => number
  /** the whitelist is refreshed once older than this */
  ttlMs: number
  lastKnown?: LastKnownState
  /** The first read of an account's credit line (cached by the caller). */
  readLine: (user: string) => Promise<CreditLine>
}

/** The credit whitelist of each account, last known first: stale-while-revalidate on the background lane. */
export class CreditWhitelists {
  private readonly whitelists = new Map<string, { at: number; ids: string[]; refreshing: boolean }>()

  constructor(private readonly o: CreditWhitelistsOptions) {}

  /** The credit whitelist, last known first: stale-while-revalidate on the background lane. */
  async of(user: string): Promise<string[]> {
    let hit = this.whitelists.get(user)
    const ttl = this.o.ttlMs
    if (!hit) {
      // The last run's credit page knew it: shown at once, refreshed below when old.
      const known = this.o.lastKnown?.load<{ tradingWhitelist?: string[] }>(user, 'credit')
      if (known && Array.isArray(known.value.tradingWhitelist))
        this.whitelists.set(user, (hit = { at: known.fetchedAt, ids: known.value.tradingWhitelist, refreshing: false }))
    }
    if (!hit) {
      const line = await this.o.readLine(user)
      this.whitelists.set(user, { at: this.o.now(), ids: line.whitelistedMarketIds, refreshing: false })
      return line.whitelistedMarketIds
    }
    if (this.o.now() - hit.at >= ttl && !hit.refreshing) {
      hit.refreshing = true
      infoAccountReads(this.o.info, 'background')
        .creditLine(user)
        .then(
          (line) => this.whitelists.set(user, { at: this.o.now(), ids: line.whitelistedMarketIds, refreshing: false }),
          () => (hit.refreshing = false),
        )
    }
    return hit.ids
  }
}
