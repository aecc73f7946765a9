/**
 * The scenario's market-making bot: every cycle it re-quotes a ladder around the market's
 * mark-implied mid (base mark / quote mark, on the ladder step), or around a slowly wandering
 * mid when a mark is missing, on each market (one `batch`: cancelAll + 4 bids + 4 asks), and a separate
 * taker key crosses the top of book now and then so trades and fills keep flowing.
 * It submits real signed envelopes and sits out any cycle while a /trade fault is switched on,
 * so it never consumes a fault meant for the operator under test.
 */
import type { TradeAction } from '../../main/core/wire/actions'
import { formatAtoms, parseDecimal } from '../../main/core/money/decimal'
import type { TradingFaults, TradingService } from '../trading/types'
import { actionSender } from './signed-actions'
import type { DevKey } from './dev-keys'

export interface MarketQuoteSpec {
  market_id: string
  /** starting mid, display price */
  mid: string
  /** distance between ladder levels, display price (also the walk step) */
  step: string
  /** size of each level, display quantity */
  size: string
}

export interface MarketMakerOptions {
  maker: DevKey
  taker: DevKey
  markets: MarketQuoteSpec[]
  intervalMs: number
  /** probability per market per cycle that the taker crosses; default 0.5 */
  takeProbability?: number
  /** quote around the moving marks (default true); false = the seeded mid's own wander */
  followMarks?: boolean
  random?: () => number
  now?: () => number
}

export interface MarketMaker {
  running(): boolean
  pause(): void
  resume(): void
  /** one quoting cycle now (tests and seeding) */
  cycle(): Promise<void>
  stop(): Promise<void>
  readonly cycles: number
  /** current quoting mid per market (display price), for tests and the admin state */
  mids(): Record<string, string>
}

/** A rule that can still fire (a spent `count` with no probability is over). */
function live(rule: { count?: number; probability?: number } | null | undefined): boolean {
  return !!rule && ((rule.count ?? 0) > 0 || (rule.probability ?? 0) > 0)
}

/** Any /trade fault the bot must not consume (a cloid-targeted failTx cannot hit the bot). */
export function faultsActive(f: TradingFaults): boolean {
  return (
    live(f.tradeTimeout) ||
    live(f.unavailable503) ||
    live(f.nodeUnreachable504) ||
    live(f.rateLimited) ||
    f.placeOrderSuspended ||
    live(f.queryLagBackpressure) ||
    live(f.envelopeFailure) ||
    (!!f.failTx && f.failTx.cloid === undefined)
  )
}

interface QuoteState {
  spec: MarketQuoteSpec
  baseAssetId: number
  quoteAssetId: number
  priceDecimals: number
  mid: bigint
  initialMid: bigint
  step: bigint
  size: string
}

export function createMarketMaker(trading: TradingService, opts: MarketMakerOptions): MarketMaker {
  const random = opts.random ?? Math.random
  const now = opts.now ?? Date.now
  const markets = new Map(trading.listMarkets().map((m) => [String(m.market_id), m]))
  const quotes: QuoteState[] = opts.markets.map((spec) => {
    const m = markets.get(spec.market_id)
    if (!m) throw new Error(`market-maker: unknown market ${spec.market_id}`)
    const mid = parseDecimal(spec.mid, m.price_decimals)
    return {
      spec,
      baseAssetId: m.base_asset_id,
      quoteAssetId: m.quote_asset_id,
      priceDecimals: m.price_decimals,
      mid,
      initialMid: mid,
      step: parseDecimal(spec.step, m.price_decimals),
      size: spec.size,
    }
  })
  // One sender per key (nonces are per signer); one peer id per market and role, so each stays
  // within the per-IP /trade budget.
  const maker = actionSender(trading, opts.maker.privateKey, 'internal:mm', now)
  const taker = actionSender(trading, opts.taker.privateKey, 'internal:taker', now)
  let paused = false
  let stopped = false
  let busy: Promise<void> | null = null
  let timer: ReturnType<typeof setTimeout> | null = null
  let cycles = 0

  const px = (q: QuoteState, atoms: bigint) => formatAtoms(atoms, q.priceDecimals)

  /** Mid implied by the marks, in price atoms on the ladder step; null when a mark is missing. */
  function markMid(q: QuoteState): bigint | null {
    const marks = new Map(trading.marks().map((m) => [m.assetId, m.usdAtoms]))
    const base = marks.get(q.baseAssetId)
    const quoteMark = marks.get(q.quoteAssetId)
    if (base === undefined || quoteMark === undefined || quoteMark <= 0n) return null
    const raw = (base * 10n ** BigInt(q.priceDecimals)) / quoteMark
    const onStep = ((raw + q.step / 2n) / q.step) * q.step
    return onStep > 4n * q.step ? onStep : null
  }

  async function quote(q: QuoteState): Promise<void> {
    const fromMarks = opts.followMarks === false ? null : markMid(q)
    if (fromMarks !== null) q.mid = fromMarks
    else {
      // Wander by at most one step, staying within ±5 % of the start.
      const r = random()
      const delta = r < 0.33 ? -q.step : r > 0.67 ? q.step : 0n
      const next = q.mid + delta
      const band = q.initialMid / 20n
      if (next > q.initialMid - band && next < q.initialMid + band) q.mid = next
    }
    const items: TradeAction[] = [{ type: 'cancelAll', market_id: q.spec.market_id }]
    for (let k = 1n; k <= 4n; k++) {
      items.push({
        type: 'order',
        market_id: q.spec.market_id,
        side: 'bid',
        order_type: 'limit',
        tif: 'gtc',
        price: px(q, q.mid - k * q.step),
        quantity: q.size,
      })
      items.push({
        type: 'order',
        market_id: q.spec.market_id,
        side: 'ask',
        order_type: 'limit',
        tif: 'gtc',
        price: px(q, q.mid + k * q.step),
        quantity: q.size,
      })
    }
    await maker.send({ type: 'batch', items } as TradeAction, undefined, `internal:mm:${q.spec.market_id}`)
    if (random() < (opts.takeProbability ?? 0.5)) {
      const buy = random() < 0.5
      const take = {
        type: 'order',
        market_id: q.spec.market_id,
        side: buy ? 'bid' : 'ask',
        order_type: 'limit',
        tif: 'ioc',
        price: px(q, buy ? q.mid + q.step : q.mid - q.step),
        quantity: q.size,
      } as TradeAction
      await taker.send(take, undefined, `internal:taker:${q.spec.market_id}`)
    }
  }

  async function cycle(): Promise<void> {
    if (busy) return busy
    busy = (async () => {
      try {
        if (paused || stopped || faultsActive(trading.faults)) return
        await Promise.all(quotes.map((q) => quote(q).catch(() => undefined)))
        cycles += 1
      } finally {
        busy = null
      }
    })()
    return busy
  }

  function schedule(): void {
    if (stopped) return
    timer = setTimeout(() => {
      void cycle().finally(schedule)
    }, opts.intervalMs)
    timer.unref?.()
  }
  schedule()

  return {
    running: () => !paused && !stopped,
    pause: () => {
      paused = true
    },
    resume: () => {
      paused = false
    },
    cycle,
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      if (busy) await busy
    },
    get cycles() {
      return cycles
    },
    mids: () => Object.fromEntries(quotes.map((q) => [q.spec.market_id, px(q, q.mid)])),
  }
}
