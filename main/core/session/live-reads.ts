import { DeskError } from '../errors/desk-error'
import { formatAtoms, parseSignedDecimal } from '../money/decimal'
import type { LiveAccountState } from '../streams/live-state'
import {
  infoAccountReads,
  type AccountReads,
  type AgentSlotInfo,
  type BalanceInfo,
  type CreditLine,
  type OpenOrderInfo,
  type PositionInfo,
} from './account-reads'
import { creditAvailable } from './valuation'
import { CreditWhitelists } from './credit-whitelist'
import { DataAges } from './data-ages'
import { cachedRead, type ReadCache } from './read-cache'
import { DEFAULT_DATA_MAX_AGE_MS, type LiveReadsOptions } from './live-reads-options'
import { WriteMarks } from './write-marks'

export { DEFAULT_DATA_MAX_AGE_MS, type LiveReadsOptions } from './live-reads-options'

type Channel = 'spotState' | 'spotCreditState' | 'openOrders'

/**
 * AccountReads for previews and writes, streams first: balances, credit line and positions, and
 * open orders come from the stream pool's live state while it is current (its channel streams,
 * or its last frame is within `maxAgeMs`); otherwise one /info read in the operator lane. What
 * streams do not carry (assets, markets, minimums, agents, account status) is read through /info
 * and the slow-changing parts are cached. Every account read records how old the data used was,
 * so a preview can state its age; data that is too old and cannot be refreshed is refused with
 * `StaleData` (nothing is signed on it).
 */
export class LiveAccountReads implements AccountReads {
  private readonly base: AccountReads
  private readonly maxAgeMs: number
  private readonly statics: ReadCache = new Map()
  private readonly perAccount: ReadCache = new Map()
  private readonly ages: DataAges
  private readonly marks: WriteMarks
  private readonly whitelists: CreditWhitelists
  readonly close: () => void
  /** Reads a write itself waits on: first in the /info budget, ahead of every screen's read. */
  private readonly urgent: AccountReads
  /** owner -> agent slots the trading signer is picked from */
  private readonly signerSlots = new Map<string, { at: number; value: Promise<AgentSlotInfo[]> }>()

  constructor(private readonly o: LiveReadsOptions) {
    this.base = infoAccountReads(o.info, 'operator')
    this.urgent = infoAccountReads(o.info, 'write')
    this.maxAgeMs = o.maxAgeMs ?? DEFAULT_DATA_MAX_AGE_MS
    this.ages = new DataAges(o.pool, () => o.now(), this.maxAgeMs)
    this.marks = new WriteMarks(
      o.writes,
      () => o.now(),
      (account) => this.signerSlots.delete(account),
    )
    this.close = this.marks.close
    this.whitelists = new CreditWhitelists({
      info: o.info,
      now: () => o.now(),
      ttlMs: o.accountTtlMs ?? 60_000,
      lastKnown: o.lastKnown,
      readLine: (user) => this.cached(this.perAccount, `line:${user}`, o.accountTtlMs ?? 60_000, () => this.base.creditLine(user)),
    })
  }

  get dataMaxAgeMs(): number {
    return this.maxAgeMs
  }

  /** Age (ms) of the oldest data last used for any of `accounts`; null when none was read. */
  dataAgeMs(accounts: readonly string[]): number | null {
    return this.ages.dataAgeMs(accounts)
  }

  /** Re-validates, at signing time, the data a write was checked against (see `DataAges.assertFresh`). */
  assertFresh(accounts: readonly string[]): void {
    this.ages.assertFresh(accounts)
  }

  assets() {
    return this.cached(this.statics, 'assets', this.o.staticTtlMs ?? 300_000, () => this.urgent.assets())
  }
  markets() {
    return this.cached(this.statics, 'markets', this.o.staticTtlMs ?? 300_000, () => this.urgent.markets())
  }
  quoteMinimums() {
    return this.cached(this.statics, 'quoteMinimums', this.o.staticTtlMs ?? 300_000, () => this.urgent.quoteMinimums())
  }
  withdrawMinimums() {
    return this.cached(this.statics, 'withdrawMinimums', this.o.staticTtlMs ?? 300_000, () => this.urgent.withdrawMinimums())
  }
  agents(user: string) {
    // Agent slots are not streamed, and a rotation must see the chain as it is now.
    return this.base.agents(user)
  }

  /**
   * Agent slots for picking an order's signer (with the epoch it must carry). Slots change only
   * by an agent write, which drops them here (as does a write refused for its epoch), so they
   * are kept up to five minutes: an order does not wait for a userAgents read. A miss is read first
   * in the /info budget.
   */
  signerAgents(user: string): Promise<AgentSlotInfo[]> {
    const u = user.toLowerCase()
    const ttl = this.o.signerAgentsTtlMs ?? 300_000
    const hit = this.signerSlots.get(u)
    // Past half its life it is re-read in the background lane, so a steady flow of orders never meets an expired entry.
    if (hit && this.o.now() - hit.at >= ttl / 2 && this.o.now() - hit.at < ttl && !this.slotsRefreshing.has(u)) {
      this.slotsRefreshing.add(u)
      infoAccountReads(this.o.info, 'reconcile')
        .agents(u)
        .then((value) => {
          if (this.signerSlots.get(u) === hit) this.signerSlots.set(u, { at: this.o.now(), value: Promise.resolve(value) })
        })
        .catch(() => {})
        .finally(() => this.slotsRefreshing.delete(u))
    }
    return this.cached(this.signerSlots as ReadCache, u, ttl, () => this.urgent.agents(u))
  }
  private readonly slotsRefreshing = new Set<string>()

  /**
   * What an order's checks need of an account: whether it is a credit account, its status and
   * its credit whitelist. An order, a cancel or a fill changes none of them, so live state is
   * used even when older than the account's latest write (still within the age limit); without
   * it, one /info read first in the budget.
   */
  async tradingGate(user: string): Promise<CreditLine> {
    const u = user.toLowerCase()
    const credit = this.live(u, 'spotCreditState', { acrossWrites: true })
    if (credit) {
      const c = credit.value
      if (!c.authorized || c.status === null || c.creditUsdAtoms === null) return NOT_CREDIT
      return {
        isCredit: true,
        status: c.status,
        creditUsdAtoms: c.creditUsdAtoms,
        availableUsdAtoms: null,
        lastKnownAvailableUsdAtoms: null,
        whitelistedMarketIds: await this.whitelists.of(u),
      }
    }
    const balances = this.live(u, 'spotState', { acrossWrites: true })
    if (balances && balances.value.length > 0) return NOT_CREDIT
    return this.fallback(u, 'spotCreditState', () => this.urgent.creditLine(u))
  }

  /** An accepted cancel: its orders (by oid, or every order of a market) leave the live state at once. */
  noteCancelled(user: string, what: { oids?: readonly string[]; marketIds?: readonly number[] }): void {
    this.o.pool?.dropOrders(user, what)
  }

  /**
   * Open orders for a write's decision or its verification. Live state newer than the account's
   * latest write answers at once; with a write since, a frame is awaited for up to
   * `frameWaitMs` (or accepted at once when `enough` says the older state already settles the
   * question); then one /info read first in the budget, which becomes the live state too, so
   * every screen shows what the write's check saw.
   */
  async writeOpenOrders(
    user: string,
    marketId: number,
    enough?: (orders: OpenOrderInfo[], afterWrite: boolean) => boolean,
  ): Promise<{ orders: OpenOrderInfo[]; truncated: boolean }> {
    const u = user.toLowerCase()
    const pool = this.o.pool
    const view = (slot: NonNullable<LiveAccountState['openOrders']>) =>
      slot.value
        .map((o) => ({ oid: String(o.oid), cloid: o.cloid, marketId: o.marketId === null ? null : Number(o.marketId), remainingQty: o.sz }))
        .filter((o) => marketId < 0 || o.marketId === marketId)
    if (pool) {
      const until = this.o.now() + (this.o.frameWaitMs ?? 700)
      for (;;) {
        const current = this.live(u, 'openOrders')
        if (current && !current.truncated) return { orders: view(current), truncated: false }
        const any = this.live(u, 'openOrders', { acrossWrites: true })
        if (any && !any.truncated && enough?.(view(any), any.at > (this.marks.sentAt.get(u) ?? -Infinity)))
          return { orders: view(any), truncated: false }
        // Only a channel that streams brings a newer frame.
        if (!any || !pool.isLive(u, 'openOrders', any.at) || this.o.now() >= until) break
        await new Promise((r) => setTimeout(r, 15))
      }
    }
    const issuedAt = pool?.time()
    const r = await this.fallback(u, 'openOrders', () => this.o.info.openOrders({ user: u, market_id: -1 }, { lane: 'write' }))
    pool?.noteOpenOrders(u, r, this.o.now(), issuedAt)
    const orders = r.orders
      .map((x) => ({ oid: String(x.oid), cloid: x.cloid ?? null, marketId: x.market_id ?? null, remainingQty: x.remaining_qty }))
      .filter((o) => marketId < 0 || o.marketId === marketId)
    return { orders, truncated: r.truncated }
  }

  async accountExists(user: string): Promise<{ found: boolean; status: 'active' | 'frozen' | null }> {
    const u = user.toLowerCase()
    const credit = this.live(u, 'spotCreditState')
    // A credit frame names the status; existence otherwise rarely changes: a found account is kept a minute.
    if (credit?.value.authorized && credit.value.status) return { found: true, status: credit.value.status }
    // Held balances: the account exists (only credit accounts are ever frozen).
    const balances = this.live(u, 'spotState')
    if (balances && balances.value.length > 0) return { found: true, status: 'active' }
    const r = await this.cached(this.perAccount, `exists:${u}`, this.o.accountTtlMs ?? 60_000, () => this.base.accountExists(u))
    if (!r.found) this.perAccount.delete(`exists:${u}`) // an activation may follow: never cache "not found"
    return r
  }

  async creditLine(user: string): Promise<CreditLine> {
    const u = user.toLowerCase()
    const live = this.live(u, 'spotCreditState')
    if (!live) {
      // Balance accounts' credit channel is not streamed; held balances say balance-mode (a
      // credit account's balance list is empty), so no request is needed to tell. A write does
      // not change an account's mode: balances from before it still tell.
      const balances = this.live(u, 'spotState', { acrossWrites: true })
      if (balances && balances.value.length > 0)
        return {
          isCredit: false,
          status: null,
          creditUsdAtoms: null,
          availableUsdAtoms: null,
          lastKnownAvailableUsdAtoms: null,
          whitelistedMarketIds: [],
        }
      return this.fallback(u, 'spotCreditState', () => this.base.creditLine(u))
    }
    const c = live.value
    if (!c.authorized || c.status === null || c.creditUsdAtoms === null) {
      return {
        isCredit: false,
        status: null,
        creditUsdAtoms: null,
        availableUsdAtoms: null,
        lastKnownAvailableUsdAtoms: null,
        whitelistedMarketIds: [],
      }
    }
    // Available USD is the line plus each position's contribution at a fresh mark (the service's rule).
    const md = await this.o.market.recent('operator')
    const { available, lastKnown } = creditAvailable(md, c.creditUsdAtoms, c.positions, this.o.now())
    // The whitelist is not streamed: the last /info answer, refreshed in the background once
    // past a minute (a preview waits for /info only the first time an account is read).
    const whitelist = await this.whitelists.of(u)
    return {
      isCredit: true,
      status: c.status,
      creditUsdAtoms: c.creditUsdAtoms,
      availableUsdAtoms: available,
      lastKnownAvailableUsdAtoms: lastKnown,
      whitelistedMarketIds: whitelist,
    }
  }

  async positions(user: string): Promise<PositionInfo[]> {
    const u = user.toLowerCase()
    const live = this.live(u, 'spotCreditState')
    if (!live) return this.fallback(u, 'spotCreditState', () => this.base.positions(u))
    return live.value.positions.map((p) => ({
      assetId: p.asset_id,
      symbol: p.symbol,
      actualQty: p.actual_qty,
      pendingExposureQty: p.pending_exposure_qty,
    }))
  }

  async balances(user: string): Promise<BalanceInfo[]> {
    const u = user.toLowerCase()
    const live = this.live(u, 'spotState')
    if (!live) {
      const pool = this.o.pool
      const issuedAt = pool?.time()
      const rows = await this.fallback(u, 'spotState', () => this.base.balances(u))
      if (pool && issuedAt !== undefined) pool.noteBalances(u, rows, issuedAt)
      return rows
    }
    return live.value.map((b) => ({ assetId: b.assetId, locked: b.locked, available: b.available ?? minus(b.total ?? '0', b.locked) }))
  }

  orderIsOpen(q: { oid: string } | { user: string; marketId: number; cloid: string }): Promise<boolean> {
    if (!this.base.orderIsOpen) return Promise.resolve(false)
    return this.base.orderIsOpen(q)
  }

  async openOrders(user: string, marketId: number): Promise<{ orders: OpenOrderInfo[]; truncated: boolean }> {
    const u = user.toLowerCase()
    const live = this.live(u, 'openOrders')
    if (!live || live.truncated) return this.fallback(u, 'openOrders', () => this.base.openOrders(u, marketId))
    const orders = live.value
      .map((o) => ({ oid: String(o.oid), cloid: o.cloid, marketId: o.marketId === null ? null : Number(o.marketId), remainingQty: o.sz }))
      .filter((o) => marketId < 0 || o.marketId === marketId)
    return { orders, truncated: false }
  }

  // ---- internals ---------------------------------------------------------------------------

  /** The pool's state for this channel while current; records its time as used. */
  private live(user: string, channel: 'spotState', opts?: { acrossWrites?: boolean }): LiveAccountState['balances']
  private live(user: string, channel: 'spotCreditState', opts?: { acrossWrites?: boolean }): LiveAccountState['credit']
  private live(user: string, channel: 'openOrders', opts?: { acrossWrites?: boolean }): LiveAccountState['openOrders']
  private live(
    user: string,
    channel: Channel,
    opts: { acrossWrites?: boolean } = {},
  ): LiveAccountState[keyof Omit<LiveAccountState, 'user'>] {
    const pool = this.o.pool
    if (!pool) return null
    const st = pool.state(user)
    const slot = channel === 'spotState' ? st.balances : channel === 'spotCreditState' ? st.credit : st.openOrders
    if (!slot) return null
    // A write since this state arrived: its frame may not be here yet, so /info answers instead
    // (a verification after a cancel must see the cancel).
    if (!opts.acrossWrites && slot.at <= (this.marks.writtenAt.get(user) ?? -Infinity)) return null
    const now = this.o.now()
    const at = pool.isLive(user, channel, slot.at) ? now : slot.at
    if (now - at > this.maxAgeMs) return null
    this.use(user, at)
    return slot
  }

  /** /info when live state is missing or too old; if that fails while old state exists, StaleData. */
  private async fallback<T>(user: string, channel: Channel, read: () => Promise<T>): Promise<T> {
    try {
      const v = await read()
      this.use(user, this.o.now())
      this.ages.infoRead(user, this.o.now())
      return v
    } catch (e) {
      const st = this.o.pool?.state(user)
      const slot = st ? (channel === 'spotState' ? st.balances : channel === 'spotCreditState' ? st.credit : st.openOrders) : null
      if (!slot) throw e
      const ageMs = Math.max(0, this.o.now() - slot.at)
      throw new DeskError(
        'StaleData',
        `the ${channel} data of ${user} is ${Math.round(ageMs / 1000)} s old, over the ${Math.round(this.maxAgeMs / 1000)} s limit, and could not ` +
          `be refreshed (${e instanceof Error ? e.message : String(e)}); nothing was signed`,
        { account: user, ageMs, limitMs: this.maxAgeMs },
      )
    }
  }

  private use(user: string, at: number): void {
    this.ages.use(user, at)
  }

  private cached<T>(map: ReadCache, key: string, ttl: number, read: () => Promise<T>): Promise<T> {
    return cachedRead(map, key, ttl, () => this.o.now(), read)
  }
}

const NOT_CREDIT: CreditLine = {
  isCredit: false,
  status: null,
  creditUsdAtoms: null,
  availableUsdAtoms: null,
  lastKnownAvailableUsdAtoms: null,
  whitelistedMarketIds: [],
}

/** a - b on display decimals, exact. */
function minus(a: string, b: string): string {
  return formatAtoms(parseSignedDecimal(a, 18) - parseSignedDecimal(b, 18), 18)
}

/**
 * A preview stamped with the age of the account data behind it (the accounts of its effects)
 * and the limit past which the desk refuses to sign on such data.
 */
export function withDataAge<T extends { effects: readonly { account: string }[] }>(
  w: { reads: AccountReads },
  view: T,
): T & { dataAgeMs: number | null; dataMaxAgeMs: number } {
  const reads = w.reads instanceof LiveAccountReads ? w.reads : null
  return {
    ...view,
    dataAgeMs: reads ? reads.dataAgeMs(view.effects.map((e) => e.account)) : 0,
    dataMaxAgeMs: reads?.dataMaxAgeMs ?? DEFAULT_DATA_MAX_AGE_MS,
  }
}
