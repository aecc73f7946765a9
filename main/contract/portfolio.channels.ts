/** The portfolio's read side: markets, the overview, account pages, credit health, and the screen leases that keep them live. */

import * as v from 'valibot'
import type {
  AccountDetailView,
  AssetView,
  CreditHealthView,
  CreditSample,
  MarketView,
  OverviewView,
  ScreenLeaseView,
  StatusOverviewView,
} from './portfolio.types'
import { query } from './common.channel'
import { address, none, timeMs } from './common.schemas'

/** What a screen watches: one account page, one credit page, or the overview's visible rows (at most 200). */
const screenTarget = v.variant('kind', [
  v.object({ kind: v.literal('account'), address }),
  v.object({ kind: v.literal('credit'), address }),
  v.object({ kind: v.literal('overview'), addresses: v.pipe(v.array(address), v.maxLength(200)) }),
])
const leaseId = v.pipe(v.string(), v.regex(/^lease-[0-9]{1,15}$/, 'must be a lease id from screen.watch'))

export const portfolioChannels = {
  'markets.list': query<{ markets: MarketView[]; assets: AssetView[] }>()(none),
  'portfolio.overview': query<OverviewView>()(none),
  'account.detail': query<AccountDetailView>()(v.object({ address })),
  'credit.health': query<CreditHealthView>()(v.object({ address })),
  'credit.history': query<CreditSample[]>()(v.object({ address, sinceMs: timeMs })),
  /**
   * A screen takes (or, with its `leaseId`, renews or retargets) a lease on what it watches: main
   * pushes it and streams it first while the lease holds. Leases are the calling window's or
   * socket's: they end with it, on `screen.release`, or when not renewed within `ttlMs`.
   */
  'screen.watch': query<ScreenLeaseView>()(v.object({ target: screenTarget, leaseId: v.optional(leaseId) })),
  /** Gives a lease back; `released` is false when it had already lapsed (or is another window's). */
  'screen.release': query<{ released: boolean }>()(v.object({ leaseId })),
  /** The overview of the named accounts (default: every vault account) read now from the service, not the live model's. */
  'portfolio.status': query<StatusOverviewView>()(v.object({ addresses: v.optional(v.pipe(v.array(address), v.maxLength(200))) })),
} as const
