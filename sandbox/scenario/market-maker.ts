/**
 * The scenario's market-making bot: every cycle it re-quotes a ladder around a slowly
 * wandering mid on each market (one `batch`: cancelAll + 4 bids + 4 asks), and a separate
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
}

export function faultsActive(f: TradingFaults): boolean {
  return !!(f.tradeTimeout || f.unavailable503 || f.nodeUnreachable504 || f.rateLimited || f.placeOrderSuspended || f.queryLagBackpressure)
}

interface QuoteState {
  spec: MarketQuoteSpec
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
    return { spec, priceDecimals: m.price_decimals, mid, initialMid: mid, step: parseDecimal(spec.step, m.price_decimals), size: spec.size }
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

  async function quote(q: QuoteState): Promise<void> {
    // Wander by at most one step, staying within ±5 % of the start.
    const r = random()
    const delta = r < 0.33 ? -q.step : r > 0.67 ? q.step : 0n
    const next = q.mid + delta
    const band = q.initialMid / 20n
    if (next > q.initialMid - band && next < q.initialMid + band) q.mid = next
    const items: TradeAction[] = [{ type: 'cancelAll', market_id: q.spec.market_id }]
    for (let k = 1n; k <= 4n; k++) {
      items.push({ type: 'order', market_id: q.spec.market_id, side: 'bid', order_type: 'limit', tif: 'gtc', price: px(q, q.mid - k * q.step), quantity: q.size })
      items.push({ type: 'order', market_id: q.spec.market_id, side: 'ask', order_type: 'limit', tif: 'gtc', price: px(q, q.mid + k * q.step), quantity: q.size })
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
  }
}
