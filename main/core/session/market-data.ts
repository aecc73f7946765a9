import type { InfoClient } from '../exchange/info/client'
import type { Lane } from '../exchange/scheduler'
import { MARK_STALE_AFTER_MS } from '../wire/assumptions'

/** The mark staleness the desk assumes (the spec names none; shared with the sandbox). */
export const DEFAULT_MARK_STALE_AFTER_MS = MARK_STALE_AFTER_MS

export interface AssetMeta {
  assetId: number
  symbol: string
  decimals: number
  creditLtv: number
}

export interface Mark {
  /** USD per whole unit, scaled by 10^8 */
  usdAtoms: bigint
  sourceTsMs: number
}

export interface MarkState {
  mark: Mark | null
  ageMs: number | null
  /** missing, older than the threshold, or the oracle is unavailable */
  stale: boolean
}

export interface MarketData {
  assets: Map<number, AssetMeta>
  marks: Map<number, Mark>
  oracle: { status: 'available' | 'unavailable'; reasonCode: string | null }
  fetchedAt: number
  markStaleAfterMs: number
}

export function markState(md: MarketData, assetId: number, now: number): MarkState {
  const mark = md.marks.get(assetId) ?? null
  if (!mark) return { mark: null, ageMs: null, stale: true }
  const ageMs = Math.max(0, now - mark.sourceTsMs)
  return { mark, ageMs, stale: ageMs > md.markStaleAfterMs || md.oracle.status !== 'available' }
}

/**
 * Assets, marks and oracle status shared by the read services. Assets change rarely (kept
 * five minutes); marks and the oracle for `ttlMs`. Concurrent callers share one fetch, so a
 * dashboard of 20 accounts costs three /info requests, not sixty.
 */
export class MarketDataCache {
  private assetsAt = -Infinity
  private assets: Map<number, AssetMeta> = new Map()
  private data: MarketData | undefined
  private inflight: Promise<MarketData> | undefined
  private readonly now: () => number
  private readonly ttlMs: number
  private readonly assetsTtlMs: number
  readonly markStaleAfterMs: number

  constructor(
    private readonly info: InfoClient,
    opts: { now?: () => number; ttlMs?: number; assetsTtlMs?: number; markStaleAfterMs?: number } = {},
  ) {
    this.now = opts.now ?? Date.now
    this.ttlMs = opts.ttlMs ?? 5_000
    this.assetsTtlMs = opts.assetsTtlMs ?? 300_000
    this.markStaleAfterMs = opts.markStaleAfterMs ?? DEFAULT_MARK_STALE_AFTER_MS
  }

  async get(lane: Lane = 'background'): Promise<MarketData> {
    if (this.data && this.now() - this.data.fetchedAt < this.ttlMs) return this.data
    this.inflight ??= this.fetch(lane).finally(() => {
      this.inflight = undefined
    })
    return this.inflight
  }

  /**
   * For views built from live state: the cached data when fetched within `maxFetchAgeMs`
   * (refreshed in the background lane once past the TTL), so an operator's screen does not
   * queue on the /info budget for marks it already has. Staleness is still judged on each
   * mark's own source time, so an old fetch shows as stale marks, never as fresh ones.
   */
  async recent(lane: Lane = 'operator', maxFetchAgeMs = 15_000): Promise<MarketData> {
    const d = this.data
    if (d && this.now() - d.fetchedAt < maxFetchAgeMs) {
      if (this.now() - d.fetchedAt >= this.ttlMs) void this.get('background').catch(() => {})
      return d
    }
    return this.get(lane)
  }

  /** The last fetched data whatever its age (no network); undefined before the first fetch. */
  peek(): MarketData | undefined {
    return this.data
  }

  /** Forgets cached marks (after a write, or when the operator asks for fresh figures). */
  invalidate(): void {
    this.data = undefined
  }

  private async fetch(lane: Lane): Promise<MarketData> {
    if (this.now() - this.assetsAt >= this.assetsTtlMs) {
      const r = await this.info.assets({ lane })
      this.assets = new Map(r.assets.map((a) => [a.asset_id, { assetId: a.asset_id, symbol: a.symbol, decimals: a.balance_decimals, creditLtv: a.credit_ltv }]))
      this.assetsAt = this.now()
    }
    const [marks, oracle] = await Promise.all([this.info.markPrices({}, { lane }), this.info.oracleStatus({ lane })])
    this.data = {
      assets: this.assets,
      marks: new Map(marks.map((m) => [m.asset_id, { usdAtoms: m.usd_atoms, sourceTsMs: m.source_ts_ms }])),
      oracle: { status: oracle.oracle_status.status, reasonCode: oracle.oracle_status.reason_code ?? null },
      fetchedAt: this.now(),
      markStaleAfterMs: this.markStaleAfterMs,
    }
    return this.data
  }
}
