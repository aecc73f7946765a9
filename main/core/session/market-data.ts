import type { InfoClient } from '../exchange/info/client'
import { LANES, type Lane } from '../exchange/scheduler'
import type { LastKnownState } from './last-known'
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
 * five minutes, and across restarts in the last-known cache, so a start needs only the marks
 * and the oracle); marks and the oracle for `ttlMs`. Concurrent callers share one fetch, so a
 * dashboard of 20 accounts costs two or three /info requests, not sixty. Background refreshes
 * go in the `marks` lane, ahead of per-account background reads: a stale mark would turn every
 * USD value on screen unknown.
 */
export class MarketDataCache {
  private assetsAt = -Infinity
  private assets: Map<number, AssetMeta> = new Map()
  private data: MarketData | undefined
  private inflight: Promise<MarketData> | undefined
  private inflightLane: Lane = 'marks'
  private readonly now: () => number
  private readonly ttlMs: number
  private readonly refreshTtlMs: number
  private readonly recentMaxAgeMs: number
  private readonly assetsTtlMs: number
  readonly markStaleAfterMs: number
  private readonly lastKnown: LastKnownState | undefined
  /** The asset list came from an earlier run: used at once, re-read once in the background. */
  private assetsFromCache = false

  constructor(
    private readonly info: InfoClient,
    opts: {
      now?: () => number
      ttlMs?: number
      /**
       * How old a fetch may be before a background or marks-lane caller (pushes, alert passes)
       * fetches again (default `ttlMs`); the operator's and a write's callers keep `ttlMs`.
       */
      refreshTtlMs?: number
      assetsTtlMs?: number
      markStaleAfterMs?: number
      lastKnown?: LastKnownState
    } = {},
  ) {
    this.now = opts.now ?? Date.now
    this.ttlMs = opts.ttlMs ?? 5_000
    this.refreshTtlMs = Math.max(this.ttlMs, opts.refreshTtlMs ?? this.ttlMs)
    this.recentMaxAgeMs = Math.max(15_000, this.refreshTtlMs + 10_000)
    this.assetsTtlMs = opts.assetsTtlMs ?? 300_000
    this.markStaleAfterMs = opts.markStaleAfterMs ?? DEFAULT_MARK_STALE_AFTER_MS
    this.lastKnown = opts.lastKnown
    const cached = this.lastKnown?.load<AssetMeta[]>('*', 'assets')
    if (cached && Array.isArray(cached.value) && cached.value.length > 0) {
      this.assets = new Map(cached.value.map((a) => [a.assetId, { ...a }]))
      this.assetsFromCache = true
    }
  }

  async get(lane: Lane = 'background'): Promise<MarketData> {
    const ttl = lane === 'write' || lane === 'operator' ? this.ttlMs : this.refreshTtlMs
    if (this.data && this.now() - this.data.fetchedAt < ttl) return this.data
    const want = lane === 'background' ? 'marks' : lane
    // A fetch already queued in a lower lane is not waited for: a write behind a marks refresh
    // would wait behind every screen's read too. The more urgent fetch goes on its own.
    if (this.inflight && LANES.indexOf(want) < LANES.indexOf(this.inflightLane)) this.inflight = undefined
    if (!this.inflight) {
      const p: Promise<MarketData> = this.fetch(want).finally(() => {
        if (this.inflight === p) this.inflight = undefined
      })
      this.inflight = p
      this.inflightLane = want
    }
    return this.inflight
  }

  /**
   * For views built from live state: the cached data when fetched within `maxFetchAgeMs` (by
   * default 15 s, or the refresh TTL and 10 s more) (refreshed in the marks lane once past the
   * refresh TTL), so an operator's screen does not
   * queue on the /info budget for marks it already has. Staleness is still judged on each
   * mark's own source time, so an old fetch shows as stale marks, never as fresh ones.
   */
  async recent(lane: Lane = 'operator', maxFetchAgeMs = this.recentMaxAgeMs): Promise<MarketData> {
    const d = this.data
    if (d && this.now() - d.fetchedAt < maxFetchAgeMs) {
      if (this.now() - d.fetchedAt >= this.refreshTtlMs) void this.get('marks').catch(() => {})
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
    const reReadAssets = this.assetsFromCache
    if (reReadAssets) {
      // Known from the last run: the marks come first; the list is re-read behind them.
      this.assetsFromCache = false
      this.assetsAt = this.now()
    } else if (this.now() - this.assetsAt >= this.assetsTtlMs) await this.readAssets(lane)
    const [marks, oracle] = await Promise.all([this.info.markPrices({}, { lane }), this.info.oracleStatus({ lane })])
    if (reReadAssets) void this.readAssets('background').catch(() => (this.assetsAt = -Infinity))
    this.data = {
      assets: this.assets,
      marks: new Map(marks.map((m) => [m.asset_id, { usdAtoms: m.usd_atoms, sourceTsMs: m.source_ts_ms }])),
      oracle: { status: oracle.oracle_status.status, reasonCode: oracle.oracle_status.reason_code ?? null },
      fetchedAt: this.now(),
      markStaleAfterMs: this.markStaleAfterMs,
    }
    return this.data
  }

  private async readAssets(lane: Lane): Promise<void> {
    const r = await this.info.assets({ lane })
    this.assets = new Map(
      r.assets.map((a) => [a.asset_id, { assetId: a.asset_id, symbol: a.symbol, decimals: a.balance_decimals, creditLtv: a.credit_ltv }]),
    )
    this.assetsAt = this.now()
    if (this.data) this.data = { ...this.data, assets: this.assets }
    this.lastKnown?.save('*', 'assets', [...this.assets.values()] satisfies AssetMeta[])
  }
}
