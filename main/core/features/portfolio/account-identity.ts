import type { AccountKind, AccountView, OverviewView } from '../../../contract/types'
import type { InfoClient } from '../../exchange/info/client'
import type { Lane } from '../../exchange/scheduler'
import type { LastKnownState } from '../../session/last-known'
import type { StreamPool } from '../../streams/pool'

/** How often an account that does not exist yet is asked about again (when its balances are not polled). */
const NONE_RECHECK_MS = 60_000
/**
 * An identity read in an earlier run is read again at a start only once it is this old: kind and
 * status change rarely (a session never re-reads them but after a write), and re-reading every
 * account at each start cost a read per account at 1 /info per second, ahead of their balances.
 */
export const IDENTITY_RECHECK_MS = 3_600_000

export interface AccountIdentity {
  kind: AccountKind
  status: AccountView['status']
  accountIndex: string | null
}

export interface AccountIdentitiesDeps {
  info: InfoClient
  pool?: StreamPool
  lastKnown?: LastKnownState
  now: () => number
}

/**
 * The type, status and index of each account (the portfolio's identity cache): read through
 * /info, or taken from an earlier run, the stream or the overview shown last, and re-read in the
 * background when old.
 */
export class AccountIdentities {
  private readonly now: () => number
  private readonly identities = new Map<string, AccountIdentity>()
  /** When each identity was read (from the service; an earlier run's for one loaded from the cache). */
  private readonly identityAt = new Map<string, number>()
  private readonly rereading = new Map<string, Promise<unknown>>()
  private readonly identityListeners = new Set<(user: string) => void>()

  constructor(private readonly deps: AccountIdentitiesDeps) {
    this.now = deps.now
  }

  /** The identity known for `user` (lowercase) now, without any read. */
  known(user: string): AccountIdentity | undefined {
    return this.identities.get(user)
  }

  /** When the identity of `user` (lowercase) was read, if it was. */
  readAt(user: string): number | undefined {
    return this.identityAt.get(user)
  }

  /**
   * Type, status and account index (cached: they rarely change). A row never waits for a read
   * when the kind is known from anywhere (an earlier run's read, the stream, the overview shown
   * last): at 1 /info per second a read per account at a start held the budget, and every balance
   * behind it, for a minute at 50 accounts. Only what is not known or has aged past
   * `IDENTITY_RECHECK_MS` is re-read, in the background lane.
   */
  async identity(address: string, lane: Lane = 'background', refresh = false): Promise<AccountIdentity> {
    const user = address.toLowerCase()
    if (refresh) return this.readIdentity(user, lane)
    const cached = this.identities.get(user)
    if (cached) {
      if (cached.status === 'none') this.recheckMissing(user)
      return cached
    }
    const known = this.deps.lastKnown?.load<AccountIdentity>(user, 'status')
    if (known && (known.value.kind !== 'unknown' || known.value.status === 'none')) {
      // Read in an earlier run: shown at once; read again only once it is old (an account that
      // does not exist is checked again by `recheckMissing`).
      this.identities.set(user, known.value)
      this.identityAt.set(user, known.fetchedAt)
      // An account that did not exist then is asked about again at once (its row is as old as
      // that answer), unless the pool refreshes its balances (strict limits).
      if (known.value.status === 'none') {
        if (this.deps.pool?.strict === true) this.recheckMissing(user)
        else this.rereadIdentity(user)
      } else if (known.value.status === 'unknown' || this.now() - known.fetchedAt >= IDENTITY_RECHECK_MS) this.rereadIdentity(user)
      return known.value
    }
    // Never read (or its read did not finish before the last run closed): the kind from the
    // socket or from the overview shown last; the status comes from one background read.
    const seen = this.fromStream(user) ?? this.shownIdentity(user)
    if (seen) {
      this.identities.set(user, seen.id)
      if (seen.at !== null) this.identityAt.set(user, seen.at)
      this.rereadIdentity(user)
      return seen.id
    }
    return this.readIdentity(user, lane)
  }

  /** One /info read of an account's identity (remembered, and saved for the next start). */
  private async readIdentity(user: string, lane: Lane): Promise<AccountIdentity> {
    const st = await this.deps.info.accountStatus({ user }, { lane })
    let kind: AccountKind = st.account_type ?? 'unknown'
    if (kind === 'unknown' && st.found) {
      const ca = await this.deps.info.spotCreditAccount({ user }, { lane })
      kind = ca.found === false || ca.status == null ? 'balance' : 'credit'
    }
    const id: AccountIdentity = {
      kind,
      status: st.found ? (st.status ?? 'unknown') : 'none',
      accountIndex: st.account_index === null ? null : st.account_index.toString(),
    }
    this.identities.set(user, id)
    this.identityAt.set(user, this.now())
    this.deps.lastKnown?.save(user, 'status', id)
    return id
  }

  /** A background re-read, one per account at a time; its listeners (the live overview) push its answer. */
  private rereadIdentity(user: string): void {
    if (this.rereading.has(user)) return
    const p = this.readIdentity(user, 'background')
      .then(() => {
        for (const l of this.identityListeners) l(user)
      })
      .catch(() => null)
      .finally(() => this.rereading.delete(user))
    this.rereading.set(user, p)
  }

  /** Called after each background identity read (nobody waits for those: the overview pushes again). */
  onIdentityRead(listener: (user: string) => void): () => void {
    this.identityListeners.add(listener)
    return () => this.identityListeners.delete(listener)
  }

  /**
   * An account that does not exist is not waited for either. Its balances stream (strict limits:
   * the pool refreshes them in turn like any polled account's; see `streamTargetsOf`), so its first
   * deposit shows there and its identity is read again then. Its status is also read again at
   * most once a minute (the write path refreshes it at once).
   */
  private recheckMissing(user: string): void {
    const polled = this.deps.pool?.state(user).balances
    const at = this.identityAt.get(user) ?? 0
    if (polled && polled.at > at) {
      if (polled.value.length > 0) this.rereadIdentity(user)
      return
    }
    if (this.now() - at >= NONE_RECHECK_MS) this.rereadIdentity(user)
  }

  /** The kind, status and index the overview showed last (an earlier run's cache), when it knew the kind. */
  private shownIdentity(user: string): { id: AccountIdentity; at: number | null } | null {
    const row = this.deps.lastKnown?.load<OverviewView>('*', 'overview')?.value.rows?.find((r) => r.account.address.toLowerCase() === user)
    if (!row || (row.account.kind === 'unknown' && row.account.status !== 'none')) return null
    return { id: { kind: row.account.kind, status: row.account.status, accountIndex: row.account.accountIndex }, at: row.fetchedAt }
  }

  private fromStream(user: string): { id: AccountIdentity; at: null } | null {
    const st = this.deps.pool?.state(user)
    if (!st) return null
    if (st.credit?.value.authorized)
      return { id: { kind: 'credit', status: st.credit.value.status ?? 'unknown', accountIndex: null }, at: null }
    // A credit account has an empty balance list, so held balances mean balance-mode.
    if (st.balances && st.balances.value.length > 0) return { id: { kind: 'balance', status: 'unknown', accountIndex: null }, at: null }
    return null
  }
}
