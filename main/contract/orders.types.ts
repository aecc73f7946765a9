/** The orders feature's views: a checked order and the order ticket's live preview (issue 14). */

import type { Decimal } from './common.types'
import type { ConfirmSigner } from './confirm.types'

/** An order ticket as checked (`orders.check`): the exact action that would be signed, and what may refuse it at execution. */
export interface OrderCheckView {
  action: Record<string, unknown>
  marketId: string
  priceAtoms: string
  quantityAtoms: string
  /** Order value in quote atoms (null when the quote asset is unknown). */
  notionalQuoteAtoms: string | null
  warnings: string[]
}

/** One side of the top of the book. */
export interface BookLevelView {
  price: Decimal
  size: Decimal
}

/** What the order ticket shows before Place order, computed in main from live state. */
export interface OrderPreviewView {
  market: {
    marketId: string
    symbol: string
    baseSymbol: string
    quoteSymbol: string
    /** Smallest price step: one unit at `price_decimals`. */
    tickSize: Decimal
    /** Smallest quantity: one unit at `base_quantity_decimals`. */
    minSize: Decimal
    /** Minimum order notional in the quote asset (`quoteAssets.min_quantity`); null when the service lists none. */
    minNotional: Decimal | null
    priceDecimals: number
    baseQuantityDecimals: number
    maxPriceSigFigs: number
  }
  /** Best bid and offer, from `/info l2Book` within the rate budget (cached briefly). */
  book: { bid: BookLevelView | null; ask: BookLevelView | null; readAt: number; lastChangeMs: number | null; source: 'stream' | 'info' }
  /** Base mark over quote mark, in quote per base (null when either mark is missing or stale). */
  markPrice: Decimal | null
  /** price x quantity in quote units, exact; null until both parse. */
  value: Decimal | null
  /** What the order spends (quote for a buy, base for a sell) that is available; null when unknown (credit account). */
  available: { units: Decimal; symbol: string } | null
  /** The key that will sign the order; null when none can (reason in `problems`). */
  signer: ConfirmSigner | null
  /** Reasons the service would refuse this order (below the minimum, off tick, over balance...). */
  problems: string[]
  warnings: string[]
  /** Age of the oldest data used (book, balances), and the limit past which the desk refuses. */
  dataAgeMs: number | null
  dataMaxAgeMs: number
  /** The operator's price band as main judges this order at Place order; null until a price parses. */
  band?: OrderBandView | null
}

/** The price band an order is judged by before signing (policy), as the ticket shows it before Place order. */
export interface OrderBandView {
  /** The band in percent; null when no band is in force (off). */
  percent: Decimal | null
  /** The reference price (the far side of the book, else the mark); null when neither is known. */
  reference: Decimal | null
  /** Where the reference came from ("best ask in the book", "mark"). */
  referenceSource: string | null
  /** Why main refuses this order for its band; null when it is inside (or no band is set). */
  breach: string | null
  /** The phrase that places this one order outside the band anyway (journaled); null when inside. */
  confirmText: string | null
}
