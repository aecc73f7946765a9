import type { InfoClient } from '../info/client'
import * as T from '../info/types'
import type { QueryWindow, TradeReads } from './reconciler'

/**
 * TradeReads over the typed /info client. Every read goes through the host's scheduler in the
 * `reconcile` lane (the client schedules; the reconciler must not schedule again).
 */
export function infoTradeReads(info: InfoClient, heights?: HeightFloor): TradeReads {
  const lane = { lane: 'reconcile' as const }
  return {
    async txStatusByCloid(user, cloid) {
      const r = await info.call(T.txStatusByCloid, { user, cloid }, lane)
      return { found: r.found, status: r.status ?? null, actionType: r.action_type ?? null }
    },
    async orderStatus(q) {
      const params = 'oid' in q ? { oid: q.oid } : { user: q.user, market_id: Number(q.marketId), cloid: q.cloid }
      const r = await info.call(T.orderStatus, params, lane)
      if (!r.found) return { found: false, status: null, filledQty: null }
      return { found: true, status: r.status, filledQty: r.filled_qty ?? null }
    },
    async userAgents(user) {
      const r = await info.call(T.userAgents, { user }, lane)
      return r.agents.map((a) => ({
        slotId: a.slot_id,
        agent: a.agent,
        epoch: a.epoch === undefined || a.epoch === null ? null : String(a.epoch),
      }))
    },
    async openOrders(user, marketId) {
      const r = await info.call(T.openOrders, { user, market_id: Number(marketId) }, lane)
      return r.orders.map((o) => ({ oid: String(o.oid), cloid: o.cloid ?? null }))
    },
    async queryStatus() {
      const w = windowOf(await info.call(T.queryStatus, {}, lane))
      heights?.observe(w.height)
      return w
    },
    async withdrawNonces(user) {
      const rows = await info.call(T.withdraws, { user }, lane)
      return rows.flatMap((w) => (w.withdraw_nonce !== undefined ? [String(w.withdraw_nonce)] : []))
    },
  }
}

/** queryStatus fields (all null before any view exists) as the reconciler's window. */
export function windowOf(r: { query_height?: unknown; query_time_ms?: unknown; earliest_retained_height?: unknown }): QueryWindow {
  const big = (x: unknown) =>
    typeof x === 'bigint' ? x : typeof x === 'number' || (typeof x === 'string' && /^[0-9]+$/.test(x)) ? BigInt(x) : null
  return {
    height: big(r.query_height),
    timeMs: typeof r.query_time_ms === 'number' ? r.query_time_ms : null,
    earliestRetainedHeight: big(r.earliest_retained_height),
  }
}

/** A height observed this recently is used as a write's floor without a read of its own. */
export const HEIGHT_FLOOR_MAX_AGE_MS = 60_000

/**
 * For TradeSubmitter's `heightFloor`: a height at or below the service's current one. Heights
 * only grow, so any height observed before the send is a valid lower bound of the height the
 * write executes at: the latest one seen (by the reconciler's reads, or an earlier write's) is
 * used while it is younger than `maxAgeMs`, so a write costs no /info read of its own. Older
 * (the window a lost write is proved in moves on), it is read again in the write lane, ahead of
 * every screen's read; and refreshed once half that age, not awaited, so a steady flow of writes
 * never has to wait for it. The refresh is a write's read too, so it goes in the write lane
 * (one read per half age at most): in the reconcile lane it waited behind the screens' reads for
 * longer than the half age left when /info was busy (the writes bench saw 24 s), and the next
 * write (a halt's cancel) then waited 1.7 s for a read of its own. A start's priming read in the
 * background lane never stands in for a write's read: on a busy budget it can wait minutes, and
 * the writes bench saw a cancel wait 1 s for its own read after the floor aged out behind it.
 */
export class HeightFloor {
  private height: bigint | null = null
  private at = -Infinity
  /** The read in flight, if any, and its lane (a write shares a write-lane read, never a background one). */
  private pending: { lane: 'write' | 'background'; read: Promise<bigint | null> } | null = null

  constructor(
    private readonly info: InfoClient,
    private readonly now: () => number = Date.now,
    private readonly maxAgeMs = HEIGHT_FLOOR_MAX_AGE_MS,
  ) {}

  observe(h: bigint | null): void {
    if (h === null) return
    if (this.height === null || h >= this.height) this.height = h
    this.at = this.now()
  }

  private read(lane: 'write' | 'background'): Promise<bigint | null> {
    const p = this.pending
    if (p && (p.lane === 'write' || lane === 'background')) return p.read
    const mine = {
      lane,
      read: this.info
        .call(T.queryStatus, {}, { lane })
        .then((r) => {
          const h = windowOf(r).height
          this.observe(h)
          return h
        })
        .finally(() => {
          if (this.pending === mine) this.pending = null
        }),
    }
    this.pending = mine
    return mine.read
  }

  /** Reads the height in the background lane when none is known yet. */
  prime(): void {
    if (this.height === null && !this.pending) void this.read('background').catch(() => null)
  }

  /** The floor for the write about to be signed. */
  readonly get = async (): Promise<bigint | null> => {
    const age = this.now() - this.at
    if (this.height !== null && age <= this.maxAgeMs) {
      if (age > this.maxAgeMs / 2) void this.read('write').catch(() => null)
      return this.height
    }
    return this.read('write')
  }
}

/** A floor read for every write (no memory), in the write lane. */
export function queryHeightFloor(info: InfoClient): () => Promise<bigint | null> {
  return async () => windowOf(await info.call(T.queryStatus, {}, { lane: 'write' })).height
}
